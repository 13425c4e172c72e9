"""One import's state (``ImportRun``), its report, and the row helpers every step uses."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import F, Model
from django.utils import timezone

from arena.imports.checks import ImportRefused
from arena.imports.records import ArenaRecord
from arena.models import AdjacentArena, Arena, Category, Persona, SubGroup
from core.models import VersionedRecord
from products.models import Product
from stories.models import Story

# What an import reports, per kind of row, in this order.
IMPORT_KINDS = (
    "arena",
    "category",
    "sub-group",
    "persona",
    "product",
    "story",
    "cell",
    "evidence",
    "adjacent arena",
    "source",
)


# The actions that change what the site holds: an import with none of them wrote nothing.
WRITING_ACTIONS = ("added", "changed", "re-dated", "restored", "retired", "removed")


REPORT_ACTIONS = (*WRITING_ACTIONS, "kept")


@dataclass
class ImportReport:
    arena: Arena
    created: bool = False
    changed: bool = False
    stories: int = 0
    cells: int = 0
    detailed_cells: int = 0
    default_weight_stories: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    # rows whose edited or moderated parts the import kept (or, told to, overwrote), one line each
    kept: list[str] = field(default_factory=list)
    overwritten: list[str] = field(default_factory=list)
    # kind → action → how many rows (IMPORT_KINDS, REPORT_ACTIONS)
    tally: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, kind: str, action: str, n: int = 1) -> None:
        if n:
            counts = self.tally.setdefault(kind, {})
            counts[action] = counts.get(action, 0) + n

    @property
    def wrote(self) -> bool:
        return any(counts.get(a) for counts in self.tally.values() for a in WRITING_ACTIONS)

    def tally_lines(self) -> list[str]:
        """``cell: 2 changed, 1 kept`` for each kind the import added to, changed, retired or kept."""
        lines = []
        for kind in IMPORT_KINDS:
            counts = self.tally.get(kind, {})
            parts = [f"{counts[a]} {a}" for a in REPORT_ACTIONS if counts.get(a)]
            if parts:
                lines.append(f"{kind}: {', '.join(parts)}")
        return lines


@dataclass
class ImportRun:
    """One import's state, passed from step to step."""

    record: ArenaRecord
    arena: Arena
    report: ImportReport
    overwrite: bool
    # positions are shifted out of the way first so the unique (arena, position) constraints hold
    # while reordering
    offset: int = 10_000_000
    categories: dict[str, Category] = field(default_factory=dict)
    subgroups: dict[tuple[str, str], SubGroup] = field(default_factory=dict)
    gone_groups: list[SubGroup] = field(default_factory=list)
    removed_categories: list[Category] = field(default_factory=list)
    personas: dict[str, Persona] = field(default_factory=dict)
    # personas whose label the import changed: every arena that shows them changes
    relabelled: list[int] = field(default_factory=list)
    products: dict[str, Product] = field(default_factory=dict)
    stories: dict[str, Story] = field(default_factory=dict)

    @property
    def says(self) -> str:
        return "file says" if self.record.exact else "page says"


def sync_row(obj: Model, values: dict, *, bump: bool = True) -> bool:
    """Set changed fields on obj and save them; return whether anything changed. A versioned row
    (``version``) moves to its next version, so an admin form opened before the import is stale
    (``bump=False``: a position put back after the shift out of the way is no edit)."""
    changed = [k for k, v in values.items() if getattr(obj, k) != v]
    for k in changed:
        setattr(obj, k, values[k])
    if changed:
        obj.save(update_fields=changed)
        if bump and isinstance(obj, VersionedRecord):
            type(obj)._base_manager.filter(pk=obj.pk).update(version=F("version") + 1)
            obj.version += 1
    return bool(changed)


def keep_edited(run: ImportRun, row: VersionedRecord, values: dict, kind: str, what: str) -> None:
    """A structure row an admin edited since the import that last wrote it keeps the edited
    values over the page's (removed from ``values``), one report line each; told to overwrite,
    the page's win and the row counts as imported again."""
    if not row.edited_since_import:
        return
    report = run.report
    differing = [k for k, v in values.items() if getattr(row, k) != v]
    for name in differing:
        line = (
            f"edited {name} {getattr(row, name)!r} of {what} ({day_text(row.edited_at)}; "
            f"{run.says} {values[name]!r})"
        )
        if run.overwrite:
            report.overwritten.append(f"overwrote {line}")
        else:
            report.kept.append(f"kept {line}")
            del values[name]
    if differing and run.overwrite:
        values["imported_at"] = timezone.now()
    elif differing:
        report.count(kind, "kept")


def keep_added(run: ImportRun, row: VersionedRecord, kind: str, what: str) -> bool:
    """A row the pages no longer list that an admin added or edited since the import that last
    wrote it stays (unless told to overwrite): whether it is kept."""
    if run.overwrite or not row.edited_since_import:
        return False
    run.report.kept.append(
        f"kept {what}, added or edited in the admin ({day_text(row.edited_at)}; "
        f"not {'in the file' if run.record.exact else 'on the pages'})"
    )
    run.report.count(kind, "kept")
    return True


def place(obj: Category | SubGroup | Product | Story, values: dict, pos: int, was: int) -> bool:
    """Write a listed row's values and its position (``was``: where it stood before the bulk shift
    out of the way); whether what the pages show of it changed."""
    changed = sync_row(obj, values)
    sync_row(obj, {"position": pos}, bump=pos != was and not changed)
    return changed or pos != was


def place_after(rows: Iterable[Category | SubGroup | Story | Product], start: int) -> None:
    """Rows the pages no longer list go after the listed ones, in their old order."""
    for pos, row in enumerate(sorted(rows, key=lambda r: r.position), start=start):
        sync_row(row, {"position": pos}, bump=False)


def day_text(at: datetime | None) -> str:
    return "" if at is None else f"{timezone.localtime(at):%Y-%m-%d}"


def retire_gone(
    rows: Iterable[Story | Product], what: str, offset: int, listed: int, report: ImportReport
) -> None:
    """Retire (never delete) the rows the pages no longer list; ``offset``: the bulk shift."""
    rows = list(rows)
    now = timezone.now()
    for row in rows:
        row.position += offset
        if row.retired_at is None:
            sync_row(row, {"retired_at": now})
            report.retired.append(f"{what} {str(row)!r}")
            report.count(what, "retired")
    place_after(rows, listed)


def named_rows[Named: (Category, SubGroup, AdjacentArena)](
    rows: Iterable[Named], names: Iterable[str], path: str, what: str
) -> dict[str, Named]:
    """The rows the pages name, by the name the pages gave them (``page_name``: an admin may have
    renamed one since), else by their name (a file exported after the rename). A name the pages
    give that an admin gave another row meanwhile is refused (nothing is imported)."""
    rows = list(rows)
    by_key = {(r.page_name or r.name): r for r in rows}
    by_name = {r.name: r for r in rows}
    found: dict[str, Named] = {}
    for name in names:
        row = by_key.get(name) or by_name.get(name)
        if row is not None and row.pk not in {r.pk for r in found.values()}:
            found[name] = row
    for name in names:
        holder = by_name.get(name)
        if name not in found and holder is not None:
            raise ImportRefused(
                f"{path}: {what} {name!r} would take the name an admin gave the {what} "
                f"{holder.page_name!r}; rename one of them (nothing was imported)"
            )
    return found
