"""Writes of stories and cells. ``cell_correct`` is the one way a cell's judgement changes (a flag,
an edit, an import): under the cell's lock with its quotes, as a new version, publicly recorded."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.conflicts import EditConflict, Fields, editable_update
from core.edits import merge_edit
from core.signals import content_changed, scores_changed
from core.text import clean_text
from products.models import Product
from stories import freshness
from stories.models import Cell, CellChange, Evidence, Story
from stories.values import JUDGEMENT_FIELDS, CellValue, Quote, Verdict

Actor = AbstractBaseUser | AnonymousUser  # who makes a change (anonymous, or an import: no one)
# a moderator's or an editor's: the cell is checked that day, and theirs until an import
JUDGED_ON_THE_DAY = frozenset({CellChange.Kind.ADMIN, CellChange.Kind.FLAG})
EVIDENCE_FIELDS = ("source", "quote", "url")


def evidence_new(quote: Quote) -> Evidence:
    """A moderator's or an editor's quote as stored; ValidationError per field."""
    evidence = Evidence(
        source=clean_text(quote.source).strip(),
        quote=clean_text(quote.quote).strip(),
        url=(quote.url or "").strip(),
        checked_on=quote.checked_on or freshness.today(),
    )
    evidence.full_clean(exclude=["cell", "position", "checked_on"], validate_unique=False)
    return evidence


def evidence_rows(cell: Cell, quotes: Iterable[Quote]) -> list[Evidence]:
    """An import's or the generator's quotes as rows of the cell, not yet stored."""
    return [Evidence(cell=cell, position=position, **vars(q)) for position, q in enumerate(quotes)]


KEEP: Literal["keep"] = "keep"  # ``Imported.as_of``: the cell's date stays


@dataclass(frozen=True)
class Imported:
    """What an import writes of a cell beside its judgement (None: kept as it is)."""

    rationale: str | None = None
    published: bool = False
    quotes: Sequence[Quote] | None = None
    as_of: date | None | Literal["keep"] = KEEP


def judgement_writes(current: Cell, new: CellValue, *, kind: str, at: datetime) -> dict[str, Any]:
    write = new.fields()
    if kind in JUDGED_ON_THE_DAY:
        write["evidence_as_of"] = freshness.newest(current.evidence_as_of, freshness.today())
        write["edited_at"] = at
    return write


def rationale_writes(
    current: Cell,
    rationale: str | None,
    old: CellValue,
    new: CellValue,
    *,
    at: datetime,
    corrected: bool,
) -> dict[str, Any]:
    """A new rationale (None: kept) and its marks: written with an upheld flag it is marked
    rewritten; kept by one that moved the verdict or quality it predates it (the first such)."""
    write: dict[str, Any] = {}
    if rationale is not None:
        rationale = clean_text(rationale)
        if rationale != current.rationale:
            write.update(
                rationale=rationale, detail_edited_at=at, edited_at=at, rationale_predates=None
            )
        if corrected:
            write.update(rationale_predates=None, rationale_rewritten_at=at)
        return write
    moved = (old.verdict, old.quality) != (new.verdict, new.quality)
    rewritten = current.rationale_rewritten_at  # (a clock set back: no mark before it)
    if corrected and moved and current.rationale_predates is None:
        if rewritten is None or rewritten < at:
            write["rationale_predates"] = at
    return write


def imported_writes(
    current: Cell, imported: Imported, *, moved: bool, kind: str, at: datetime
) -> dict[str, Any]:
    """What an import writes beside the judgement; an import over a moderated cell takes it up."""
    write: dict[str, Any] = {"imported_at": at} if kind == CellChange.Kind.IMPORT_OVERRIDE else {}
    if imported.rationale is not None:
        reworded = imported.rationale != current.rationale
        write.update(rationale=imported.rationale, detail_published=imported.published)
        if reworded or moved:
            write["rationale_predates"] = None
        if reworded:
            write["rationale_rewritten_at"] = None
    if imported.as_of != KEEP:
        write["evidence_as_of"] = imported.as_of
    return write


def cell_correct(
    *,
    cell: Cell,
    value: CellValue | None,
    by: Actor | None = None,
    note: str = "",
    kind: str = CellChange.Kind.ADMIN,
    expected_version: int | None = None,
    rationale: str | None = None,
    quotes: Sequence[Quote] = (),
    checked: Sequence[date | None] = (),
    imported: Imported | None = None,
    record_unchanged: bool = False,
    mark_arena: bool = True,
) -> CellChange | None:
    """Correct a cell's judgement to ``value`` (None: kept) by ``by`` (None: an import), with new
    ``quotes`` or quotes ``checked`` again; the record made, or None when the judgement stays (unless
    ``record_unchanged``). EditConflict past ``expected_version``; ValidationError per field."""
    if value is not None and (errors := value.errors()):
        raise ValidationError(errors)
    added = [evidence_new(q) for q in quotes]
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        if expected_version is not None and current.version != expected_version:
            raise EditConflict("cell", {}, current, current.last_change_note())
        at = timezone.now()
        old = CellValue.of(current)
        new = old if value is None else value
        recorded = new != old or record_unchanged
        write = judgement_writes(current, new, kind=kind, at=at) if recorded else {}
        corrected = recorded and kind == CellChange.Kind.FLAG
        write.update(rationale_writes(current, rationale, old, new, at=at, corrected=corrected))
        if imported is not None:
            write.update(imported_writes(current, imported, moved=new != old, kind=kind, at=at))
        if days := [*checked, *(e.checked_on for e in added)]:
            as_of = freshness.newest(write.get("evidence_as_of", current.evidence_as_of), *days)
            write.update(evidence_as_of=as_of, detail_published=True, edited_at=at)
        if not write and imported is None:
            return None
        unmoved = Cell.objects.filter(pk=cell.pk, version=current.version)
        if not unmoved.update(version=F("version") + 1, **write):
            raise EditConflict("cell", {}, current)
        change = None
        if recorded:
            change = CellChange.objects.create(
                cell_id=current.pk,
                kind=kind,
                **old.fields("old_"),
                **new.fields("new_"),
                changed_by=by if isinstance(by, User) else None,
                changed_at=at,
                note=clean_text(note).strip(),
            )
        _quotes_store(cell, imported, added)
        cell.refresh_from_db(fields=[*write, "version"])
        if mark_arena:
            backing = added or imported or {"rationale", "detail_published"} & set(write)
            changed = scores_changed if recorded or backing else content_changed
            changed.send(None, arena_id=current.story.arena_id, product_id=current.product_id)
    return change


def _quotes_store(cell: Cell, imported: Imported | None, added: list[Evidence]) -> None:
    if imported is not None and imported.quotes is not None:
        Evidence.objects.filter(cell_id=cell.pk).delete()
        added = evidence_rows(cell, imported.quotes)
    elif added:
        last = Evidence.objects.filter(cell_id=cell.pk).order_by("-position").first()
        for position, row in enumerate(added, start=0 if last is None else last.position + 1):
            row.cell_id, row.position = cell.pk, position
    Evidence.objects.bulk_create(added)


@transaction.atomic
def evidence_add(
    *, cell: Cell, source: str, quote: str, url: str = "", checked_on: date | None = None
) -> Evidence:
    """Add a quote after the cell's others, checked on ``checked_on`` (default: today)."""
    cell_correct(cell=cell, value=None, quotes=[Quote(source, quote, url, checked_on)])
    return cell.evidence.order_by("-position")[0]


@transaction.atomic
def evidence_update(*, evidence: Evidence, changes: Mapping[str, Any]) -> list[str]:
    """Change a quote's source, quote or url (checked anew today); the fields written."""
    evidence.refresh_from_db(from_queryset=Evidence.objects.select_for_update())
    source, quote, url = (
        (changes[n] or "") if n in changes else getattr(evidence, n) for n in EVIDENCE_FIELDS
    )
    fresh = evidence_new(Quote(source, quote, url))  # cleaned and checked, as of today
    write = [n for n in EVIDENCE_FIELDS if getattr(fresh, n) != getattr(evidence, n)]
    if not write:
        return []
    for name in (*write, "checked_on"):
        setattr(evidence, name, getattr(fresh, name))
    evidence.save(update_fields=[*write, "checked_on"])
    cell_correct(cell=evidence.cell, value=None, checked=[evidence.checked_on])
    return sorted(write)


def cell_edit(
    *,
    cell: Cell,
    changes: Mapping[str, Any],
    base_version: int | None,
    base: dict[str, Any] | None = None,
    by: Actor | None = None,
    note: str = "",
) -> list[str]:
    """An editor's change of the cell they read at ``base_version`` (``base``); when it moved,
    only fields nobody else touched are written, else EditConflict. The fields written."""
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        now = {f: getattr(current, f) for f in (*JUDGEMENT_FIELDS, "rationale")}
        now["proof"] = now["proof"] or None
        if current.version == base_version:
            base = now
        write, conflicts = merge_edit(
            base=base, current=now, changes=dict(changes), units=[JUDGEMENT_FIELDS]
        )
        if conflicts:
            raise EditConflict("cell", conflicts, current, current.last_change_note())
        if write:
            cell_correct(
                cell=cell,
                value=CellValue(*({**now, **write}[n] for n in JUDGEMENT_FIELDS)),
                by=by,
                note=note,
                expected_version=current.version,
                rationale=write.get("rationale"),
            )
    return sorted(write)


@transaction.atomic
def story_update(
    *, story: Story, changes: Fields, base_version: int | None = None, base: Fields | None = None
) -> list[str]:
    """An editor's change of a story (``editable_update``); the fields written."""
    if "weight" in changes:
        changes = {**changes, "weight_published": True}
    return editable_update(
        story,
        what="story",
        changes=changes,
        base_version=base_version,
        base=base,
        score_fields=("weight", "persona", "category", "subgroup"),
    )


@transaction.atomic
def story_add(*, story: Story) -> Story:
    """Save a new story with an ``n/a`` cell for every product of its arena."""
    story.text = clean_text(story.text).strip()
    story.full_clean(validate_constraints=False)
    story.save()
    cells_fill(row=story)
    scores_changed.send(None, arena_id=story.arena_id)
    return story


def cells_fill(sender: Any = None, *, row: Story | Product, **kwargs: Any) -> None:
    """An ``n/a`` cell for every pair ``row`` (a story or a product) makes that has none."""
    arena = row.arena_id
    stories = [row] if isinstance(row, Story) else Story.all_objects.filter(arena_id=arena)
    products = [row] if isinstance(row, Product) else Product.all_objects.filter(arena_id=arena)
    Cell.objects.bulk_create(
        [Cell(story=s, product=p, verdict=Verdict.NA) for s in stories for p in products],
        ignore_conflicts=True,
    )
