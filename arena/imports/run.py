"""One import's state and report (``ImportRun``), row helpers, and clashes (``ImportRefused``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import F, Model
from django.utils import timezone

from arena.imports.reading import ArenaRecord
from arena.models import AdjacentArena, Arena, Category, Persona, SubGroup
from core.models import VersionedRecord
from products.models import Product
from stories.models import Story

# What an import reports, per kind of row and action, in order (no writing action: nothing written).
IMPORT_KINDS: tuple[str, ...] = ("arena", "category", "sub-group", "persona", "product", "story")
IMPORT_KINDS += ("cell", "evidence", "adjacent arena", "source")
WRITING_ACTIONS = ("added", "changed", "re-dated", "restored", "retired", "removed")
REPORT_ACTIONS = (*WRITING_ACTIONS, "kept")
# what a row's values hold beside what an admin can edit (and a re-import keeps)
NOT_EDITS = ("page_name", "page_text", "weight_published")


class ImportRefused(Exception):
    """The pages clash with what the database holds; nothing was imported."""


def import_arena_find(record: ArenaRecord, *, slug: str) -> Arena | None:
    """The arena to update (pages: by name), None for a new one; refuses a name another holds."""
    ov = record.overview
    arena = Arena.objects.filter(slug=slug).first()
    other = Arena.objects.filter(name=ov.name).exclude(slug=slug).first()
    if arena is None and record.slug is None:
        arena, other = other, None
    if other is not None:
        belongs = f"and this file's slug is {slug!r}"
        if arena is not None:
            belongs = f"and the slug {slug!r} belongs to the arena {arena.name!r}"
        raise ImportRefused(
            f"{ov.path}: the arena name {ov.name!r} already belongs to the arena {other.slug!r}, "
            f"{belongs}; give the arena its own slug and name (nothing was imported)"
        )
    return arena


def product_check(path: str, rows: list[Product]) -> Callable[[Any, dict], None]:
    """Refuse a name or slug another product holds before a row (None: a new one) is written."""
    held = {f: {getattr(p, f): p for p in rows} for f in ("name", "slug")}

    def check(row: Product | None, values: dict[str, Any]) -> None:
        for key in ("name", "slug"):
            holder = held[key].get(values[key])
            if holder is not None and (row is None or holder.pk != row.pk):
                what = f"the {'retired ' if holder.retired_at else ''}product {holder.name!r}"
                if (called := holder.page_name) and called != holder.name:
                    what += f", which the pages call {called!r}"
                raise ImportRefused(
                    f"{path}: product {values['name']!r} would take the {key} {values[key]!r} of "
                    f"{what}; rename one of them (nothing was imported)"
                )

    return check


@dataclass
class ImportRun:
    """One import: what it read, the rows it found or wrote so far, and its report."""

    record: ArenaRecord
    arena: Arena
    overwrite: bool = False
    created: bool = False
    default_weights: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    # rows whose edited or moderated parts the import kept (or, told to, overwrote), one line each
    kept: list[str] = field(default_factory=list)
    overwritten: list[str] = field(default_factory=list)
    # (kind, action) → how many rows (IMPORT_KINDS, REPORT_ACTIONS)
    tally: Counter[tuple[str, str]] = field(default_factory=Counter)
    categories: dict[str, Category] = field(default_factory=dict)
    subgroups: dict[tuple[str, str], SubGroup] = field(default_factory=dict)
    gone_groups: list[SubGroup] = field(default_factory=list)
    removed_categories: list[Category] = field(default_factory=list)
    personas: dict[str, Persona] = field(default_factory=dict)
    # personas whose label the import changed: every arena that shows them changes
    relabelled: list[int] = field(default_factory=list)
    products: dict[str, Product] = field(default_factory=dict)
    stories: dict[str, Story] = field(default_factory=dict)

    def listed(self, kind: str, action: str, name: str) -> None:
        """A row named in the ``retired``, ``restored`` or ``removed`` list, and counted."""
        getattr(self, action).append(f"{kind} {name!r}")
        self.count(kind, action)

    def count(self, kind: str, action: str, n: int = 1) -> None:
        self.tally[kind, action] += n

    @property
    def wrote(self) -> bool:  # (an import that wrote nothing leaves the scores alone)
        return any(n for (_, action), n in self.tally.items() if action in WRITING_ACTIONS)

    @property
    def says(self) -> str:
        return "file says" if self.record.exact else "page says"

    @property
    def where(self) -> str:
        return "in the file" if self.record.exact else "on the pages"

    def summary(self) -> str:
        """``Created arena 'Name' (slug): 53 stories, 318 cells`` (or Updated, or Unchanged:)."""
        verb = "Created" if self.created else ("Updated" if self.wrote else "Unchanged:")
        stories = len(self.record.overview.stories)
        cells = stories * len(self.record.overview.products)
        return f"{verb} arena {self.arena.name!r} ({self.arena.slug}): {stories} stories, {cells} cells"

    def report_lines(self) -> list[str]:
        """The report after the summary: the counts per kind, then a line per row named."""
        file, where = self.record.exact, self.where
        lines = []
        for kind in IMPORT_KINDS:
            if parts := [f"{n} {a}" for a in REPORT_ACTIONS if (n := self.tally[kind, a])]:
                lines.append(f"{kind}: {', '.join(parts)}")
        given = "the file gives no" if file else "no page gives"
        lines += [f"{given} the weight of {t!r}: default weight used" for t in self.default_weights]
        lines += self.kept
        if self.kept:
            values = "the file's values" if file else "the pages' values"
            said = f"kept; --overwrite-moderated writes {values} over them"
            lines.append(f"{len(self.kept)} moderated or edited value(s) {said}")
        lines += self.overwritten
        lines += [
            f"retired {what} (no longer {where}; its history is kept)" for what in self.retired
        ]
        lines += [f"restored {what} (back {where})" for what in self.restored]
        lines += [f"removed {what} (no longer {where})" for what in self.removed]
        return [f"  {line}" for line in lines]


def sync_row(obj: Model, values: dict, *, bump: bool = True) -> bool:
    """Save the values that differ (a versioned row's version moves unless ``bump=False``)."""
    changed = [k for k, v in values.items() if getattr(obj, k) != v]
    for k in changed:
        setattr(obj, k, values[k])
    if bump and changed and isinstance(obj, VersionedRecord):
        obj.version = F("version") + 1
        obj.save(update_fields=[*changed, "version"])
        obj.refresh_from_db(fields=["version"])
    elif changed:
        obj.save(update_fields=changed)
    return bool(changed)


def keep_edited(
    run: ImportRun, row: VersionedRecord, values: dict, kind: str, what: str, plain: bool = False
) -> None:
    """Keep over ``values`` what an admin edited since the last import (or, told to, overwrite
    it), a report line each. ``plain``: values shown unquoted."""
    if not row.edited_since_import:
        return
    differing = [k for k in values if k not in NOT_EDITS and getattr(row, k) != values[k]]
    show = str if plain else repr
    for name in differing:
        held, says = show(getattr(row, name)), show(values[name])
        line = f"edited {name} {held} of {what} ({day_text(row.edited_at)}; {run.says} {says})"
        if run.overwrite:
            run.overwritten.append(f"overwrote {line}")
        else:
            run.kept.append(f"kept {line}")
            values[name] = getattr(row, name)
    if run.overwrite and (differing or plain):
        values["imported_at"] = timezone.now()
    if differing and (plain or not run.overwrite):
        run.count(kind, "changed" if run.overwrite else "kept")


def keep_added(run: ImportRun, row: Any, kind: str) -> bool:
    """Whether an unlisted row stays: an admin added or edited it since the last import."""
    if run.overwrite or not row.edited_since_import:
        return False
    run.kept.append(
        f"kept the {kind} {row.name!r}, added or edited in the admin ({day_text(row.edited_at)}; "
        f"not {run.where})"
    )
    run.count(kind, "kept")
    return True


def day_text(at: datetime | None) -> str:
    return "" if at is None else f"{timezone.localtime(at):%Y-%m-%d}"


def named_rows[Named: (Category, SubGroup, AdjacentArena)](
    rows: Iterable[Named], names: Iterable[str], path: str, what: str
) -> dict[str, Named]:
    """The named rows, by ``page_name`` else name; a name an admin gave another row is refused."""
    rows = list(rows)
    by_key = {(r.page_name or r.name): r for r in rows}
    by_name = {r.name: r for r in rows}
    found: dict[str, Named] = {}
    for name in names:
        row = by_key.get(name) or by_name.get(name)
        if row is not None and row.pk not in {r.pk for r in found.values()}:
            found[name] = row
        elif (holder := by_name.get(name)) is not None:
            raise ImportRefused(
                f"{path}: {what} {name!r} would take the name an admin gave the {what} "
                f"{holder.page_name!r}; rename one of them (nothing was imported)"
            )
    return found
