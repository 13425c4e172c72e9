"""Writes of the stories app (and of products, whose cells live here).

``cell_set_value`` is the one way a verdict, proof or quality changes; ``cell_edit`` is how an editor
changes a cell from a form that may be stale. Every write carries the version the caller read: a
stale write is refused with what changed meanwhile, or writes only the fields the editor changed when
nothing else touched them.
"""

from __future__ import annotations

from datetime import date

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Model
from django.utils import timezone

from arena.models import Category, SubGroup, VersionedRecord
from arena.recompute import arena_content_changed, arena_mark_stale
from arena.text import clean_text
from products.models import Product
from stories import freshness
from stories.edits import merge_edit
from stories.models import Cell, CellChange, Evidence, Story
from stories.selectors import cell_last_change_note
from stories.values import JUDGEMENT_FIELDS, CellValue, Verdict

__all__ = [
    "EditConflict",
    "cell_edit",
    "cell_mark_rationale_predates",
    "cell_set_value",
    "cell_update_detail",
    "evidence_add",
    "evidence_update",
    "product_add",
    "product_retire",
    "product_update",
    "story_add",
    "story_placement_errors",
    "story_retire",
    "story_update",
    "versioned_update",
]

STALE = "This {what} was changed by someone else since you opened it."


class EditConflict(Exception):
    """A stale write: someone else changed what the editor changed, meanwhile. Nothing was written.

    ``conflicts``: field → (what the editor read, what it is now, what the editor wanted);
    ``current``: the row as it is now (a form re-displays it).
    """

    def __init__(
        self, what: str, conflicts: dict, current: Model | None = None, detail: str = ""
    ) -> None:
        self.what, self.conflicts, self.current, self.detail = what, conflicts, current, detail
        super().__init__(self.message())

    def message(self) -> str:
        def show(v: object) -> str:
            return "—" if v in (None, "") else str(v)

        parts = [STALE.format(what=self.what)]
        if self.conflicts:
            moved = "; ".join(
                f"{field} is now {show(now)} (you read {show(read)})"
                for field, (read, now, _mine) in self.conflicts.items()
                if read != now
            )
            parts.append(f"Meanwhile: {moved}.")
        if self.detail:
            parts.append(self.detail)
        parts.append(
            "Nothing was saved; the form shows the current values: apply your change again."
        )
        return " ".join(parts)


# ---------------------------------------------------------------- cells


# The kinds of change that check a cell's evidence on the day they are made (stories/freshness.py)
JUDGED_ON_THE_DAY = frozenset({CellChange.Kind.ADMIN, CellChange.Kind.FLAG})


def cell_set_value(
    *,
    cell: Cell,
    value: CellValue,
    by: User | None = None,
    note: str = "",
    kind: str = CellChange.Kind.ADMIN,
    expected_version: int | None = None,
    mark_stale: bool = True,
    record_unchanged: bool = False,
) -> CellChange | None:
    """Change a cell's judgement (verdict, proof, quality), record the change publicly and schedule the arena's
    recomputation. Returns None when nothing changes, unless ``record_unchanged`` (an upheld flag
    that keeps the values still counts against the product, so it is recorded).

    ``expected_version`` is the version the caller read: if the cell changed since, EditConflict is
    raised and nothing is written (a conditional UPDATE, so it holds on SQLite too).
    """
    errors = value.errors()
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        if expected_version is not None and current.version != expected_version:
            raise EditConflict("cell", {}, current, cell_last_change_note(cell.pk))
        old = CellValue.of(current)
        if old == value and not record_unchanged:
            return None
        # a moderator's or editor's judgement checks the cell on the day it is made (an import
        # dates its cells by the pages' "Evidence as of": arena.services)
        checked = current.evidence_as_of
        at = timezone.now()
        # a moderator's or editor's change is theirs until an import writes over it
        marks: dict = {"edited_at": at} if kind in JUDGED_ON_THE_DAY else {}
        if kind in JUDGED_ON_THE_DAY:
            checked = freshness.newest(checked, freshness.today())
        updated = Cell.objects.filter(pk=cell.pk, version=current.version).update(
            verdict=value.verdict,
            proof=value.proof,
            quality=value.quality,
            version=F("version") + 1,
            evidence_as_of=checked,
            **marks,
        )
        if not updated:
            raise EditConflict("cell", {}, current)
        change = CellChange.objects.create(
            cell_id=cell.pk,
            kind=kind,
            old_verdict=old.verdict,
            old_proof=old.proof,
            old_quality=old.quality,
            new_verdict=value.verdict,
            new_proof=value.proof,
            new_quality=value.quality,
            changed_by=by if (by is not None and getattr(by, "is_authenticated", False)) else None,
            changed_at=at,
            note=clean_text(note).strip(),
        )
        if marks:
            cell.edited_at = at
        cell.verdict, cell.proof, cell.quality = value.verdict, value.proof, value.quality
        cell.version = current.version + 1
        cell.evidence_as_of = checked
        if mark_stale:
            arena_id = (
                Story.all_objects.filter(pk=current.story_id)
                .values_list("arena_id", flat=True)
                .get()
            )
            arena_mark_stale(arena_id=arena_id)
    return change


def _arena_of(cell: Cell) -> int:
    return Story.all_objects.filter(pk=cell.story_id).values_list("arena_id", flat=True).get()


def cell_update_detail(
    *,
    cell: Cell,
    rationale: str,
    expected_version: int | None = None,
    correction: CellChange | None = None,
) -> bool:
    """Rationale edits do not move scores: no record, no recomputation; they bump the version.

    A rationale written anew no longer predates any correction (``rationale_predates`` is
    cleared); written with an upheld ``correction`` it is marked rewritten with it (even when the
    moderator kept the words: they confirmed it argues for the corrected verdict)."""
    rationale = clean_text(rationale)
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        if expected_version is not None and current.version != expected_version:
            raise EditConflict("cell", {}, current)
        marks: dict = {"rationale_predates": None}
        if correction is not None:
            marks["rationale_rewritten_at"] = correction.changed_at
        elif current.rationale == rationale:
            return False
        if current.rationale != rationale:
            at = timezone.now()
            marks.update(
                rationale=rationale,
                version=F("version") + 1,
                detail_edited_at=at,
                edited_at=at,
            )
        Cell.objects.filter(pk=cell.pk).update(**marks)
        arena_content_changed(arena_id=_arena_of(current))
    if current.rationale != rationale:
        cell.rationale, cell.version = rationale, current.version + 1
    cell.rationale_predates = None
    if correction is not None:
        cell.rationale_rewritten_at = correction.changed_at
    return True


def cell_mark_rationale_predates(*, cell: Cell, correction: CellChange) -> bool:
    """An upheld ``correction`` kept the cell's rationale: when it changed the verdict or the
    quality, the rationale argues for the earlier judgement and is marked as written before it
    (unless it already predates an earlier correction: the mark names the first one). True when
    the mark was set."""
    old, new = correction.old_value, correction.new_value
    if (old.verdict, old.quality) == (new.verdict, new.quality):
        return False
    with transaction.atomic():
        # (a rationale rewritten with a later correction, as a clock set back could make it,
        # predates nothing older: the database refuses that mark)
        marked = (
            Cell.objects.filter(pk=cell.pk, rationale_predates__isnull=True)
            .exclude(rationale_rewritten_at__gte=correction.changed_at)
            .update(rationale_predates=correction.changed_at)
        )
        if marked:
            arena_content_changed(arena_id=_arena_of(cell))
    if marked:
        cell.rationale_predates = correction.changed_at
    return bool(marked)


# ---------------------------------------------------------------- evidence

EVIDENCE_FIELDS = ("source", "quote", "url")


def _evidence_errors(evidence: Evidence) -> dict[str, list[str]]:
    try:
        evidence.full_clean(exclude=["cell", "position", "checked_on"], validate_unique=False)
    except ValidationError as exc:
        return exc.message_dict
    return {}


def _evidence_checked(*, cell_id: int, day: date) -> None:
    """A quote of the cell checked on ``day``: its ``evidence_as_of`` moves up to it (never
    back), its detail is published (the quote shows on its proof page), and its pages change."""
    cell = Cell.objects.select_for_update().get(pk=cell_id)
    Cell.objects.filter(pk=cell_id).update(
        evidence_as_of=freshness.newest(cell.evidence_as_of, day),
        detail_published=True,
        version=F("version") + 1,
        edited_at=timezone.now(),  # (only moderators and editors add or change a quote)
    )
    arena_content_changed(arena_id=_arena_of(cell))


@transaction.atomic
def evidence_add(
    *, cell: Cell, source: str, quote: str, url: str = "", checked_on: date | None = None
) -> Evidence:
    """Add an evidence quote to a cell (after its others), checked on ``checked_on`` (default:
    today, the date of the edit or decision that adds it). The cell's ``evidence_as_of`` follows
    (stories/freshness.py) and its detail is published. ValidationError per field."""
    evidence = Evidence(
        cell_id=cell.pk,
        source=clean_text(source).strip(),
        quote=clean_text(quote).strip(),
        url=(url or "").strip(),
    )
    day = evidence.checked_on = checked_on or freshness.today()
    errors = _evidence_errors(evidence)
    if errors:
        raise ValidationError(errors)
    last = Evidence.objects.filter(cell_id=cell.pk).order_by("-position").first()
    evidence.position = 0 if last is None else last.position + 1
    evidence.save()
    _evidence_checked(cell_id=cell.pk, day=day)
    return evidence


@transaction.atomic
def evidence_update(*, evidence: Evidence, changes: dict) -> list[str]:
    """Change an evidence quote's source, quote or url (only those in ``changes``): it is checked
    anew on the day of the edit (``checked_on``), and its cell's ``evidence_as_of`` follows.
    Returns the fields written."""
    current = Evidence.objects.select_for_update().get(pk=evidence.pk)
    write = {}
    for name in EVIDENCE_FIELDS:
        if name in changes:
            value = clean_text(changes[name] or "").strip()
            if value != getattr(current, name):
                write[name] = value
    if not write:
        return []
    for name, value in write.items():
        setattr(current, name, value)
    errors = _evidence_errors(current)
    if errors:
        raise ValidationError(errors)
    day = current.checked_on = freshness.today()
    current.save(update_fields=[*write, "checked_on"])
    for name in (*write, "checked_on"):
        setattr(evidence, name, getattr(current, name))
    _evidence_checked(cell_id=current.cell_id, day=day)
    return sorted(write)


def cell_edit(
    *,
    cell: Cell,
    changes: dict,
    base_version: int,
    base: dict | None = None,
    by: User | None = None,
    note: str = "",
) -> list[str]:
    """An editor's change of a cell (``changes``: the fields they changed, among verdict, proof,
    quality and rationale), made on the cell as it was at ``base_version`` (``base``: the values they
    read). When the cell moved meanwhile, only fields nobody else touched are written; a change of
    the same thing (the judgement counts as one) raises EditConflict. Returns the fields written."""
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        now = {f: getattr(current, f) for f in (*JUDGEMENT_FIELDS, "rationale")}
        now["proof"] = now["proof"] or None
        if current.version == base_version:
            base = now
        outcome = merge_edit(base=base, current=now, changes=changes, units=[JUDGEMENT_FIELDS])
        if outcome.conflicts:
            raise EditConflict("cell", outcome.conflicts, current, cell_last_change_note(cell.pk))
        write = outcome.write
        version = current.version
        if set(write) & set(JUDGEMENT_FIELDS):
            target = {**now, **write}
            cell_set_value(
                cell=current,
                value=CellValue.from_fields(target),
                by=by,
                note=note,
                expected_version=version,
            )
            version = current.version
        if "rationale" in write:
            cell_update_detail(cell=current, rationale=write["rationale"], expected_version=version)
    for field in write:
        setattr(cell, field, getattr(current, field))
    cell.version = current.version
    return sorted(write)


# ---------------------------------------------------------------- stories and products

STORY_SCORE_FIELDS = ("weight", "persona", "category", "subgroup")


def versioned_update(
    model: type[VersionedRecord],
    *,
    obj: VersionedRecord,
    what: str,
    changes: dict,
    base_version: int | None,
    base: dict | None,
) -> list[str]:
    """Write only the fields the editor changed on a row with a ``version`` (a story, a product, a
    part of an arena), in the caller's transaction; refuse a stale edit of a field that moved
    meanwhile (EditConflict). Returns the fields written; the version moves on when any was."""
    manager = model._default_manager  # every row, retired ones too
    current = manager.select_for_update().get(pk=obj.pk)
    now = {f: getattr(current, f) for f in changes}
    if base_version is None or current.version == base_version:
        base = now
    outcome = merge_edit(base=base, current=now, changes=changes)
    if outcome.conflicts:
        raise EditConflict(what, outcome.conflicts, current)
    write = outcome.write
    if not write:
        return []
    for field, value in write.items():
        setattr(current, field, clean_text(value).strip() if isinstance(value, str) else value)
    current.full_clean(validate_unique=True, validate_constraints=True)
    updated = manager.filter(pk=obj.pk, version=current.version).update(
        version=F("version") + 1, **{f: getattr(current, f) for f in write}
    )
    if not updated:
        raise EditConflict(what, {}, current)
    for field in write:
        setattr(obj, field, getattr(current, field))
    obj.version = current.version + 1
    return sorted(write)


def story_placement_errors(
    *, arena_id: int, category: Category | None, subgroup: SubGroup | None
) -> dict[str, str]:
    """A story sits in a category of its own arena, and in a sub-group of that category."""
    if category is not None and category.arena_id != arena_id:
        return {"category": "Choose a category of this story's arena."}
    if subgroup is not None and category is not None and subgroup.category_id != category.pk:
        return {"subgroup": "Choose a sub-group of the story's category."}
    return {}


@transaction.atomic
def story_update(
    *, story: Story, changes: dict, base_version: int | None = None, base: dict | None = None
) -> list[str]:
    """Change a story's text, weight, persona, category or sub-group (only the fields in
    ``changes``); a change that can move a score schedules the arena's recomputation. Returns the
    fields written; raises EditConflict on a stale edit of a field that moved meanwhile."""
    if {"category", "subgroup"} & set(changes):
        errors = story_placement_errors(
            arena_id=story.arena_id,
            category=changes.get("category", story.category),
            subgroup=changes.get("subgroup", story.subgroup),
        )
        if errors:
            raise ValidationError(errors)
    if "weight" in changes:
        changes = {**changes, "weight_published": True}
    written = versioned_update(
        Story, obj=story, what="story", changes=changes, base_version=base_version, base=base
    )
    if written:
        Story.all_objects.filter(pk=story.pk).update(edited_at=timezone.now())
    if set(written) & set(STORY_SCORE_FIELDS):
        arena_mark_stale(arena_id=story.arena_id)
    elif written:
        arena_content_changed(arena_id=story.arena_id)
    return written


@transaction.atomic
def product_update(
    *, product: Product, changes: dict, base_version: int | None = None, base: dict | None = None
) -> list[str]:
    """Change a product's name, slug, tier or popularity figures. Returns the fields written;
    raises EditConflict on a stale edit of a field that moved."""
    if "arena" in changes and changes["arena"].pk != product.arena_id:
        raise ValidationError({"arena": "A product stays in its arena; add it to the other one."})
    written = versioned_update(
        Product, obj=product, what="product", changes=changes, base_version=base_version, base=base
    )
    if written:
        Product.all_objects.filter(pk=product.pk).update(edited_at=timezone.now())
    if "name" in written:  # the leaderboard breaks ties by name
        arena_mark_stale(arena_id=product.arena_id)
    elif written:
        arena_content_changed(arena_id=product.arena_id)
    return written


@transaction.atomic
def story_add(*, story: Story) -> Story:
    """Save a new story with an ``n/a`` cell for every product of its arena (to be judged), and
    schedule the recomputation."""
    story.text = clean_text(story.text).strip()
    story.full_clean(validate_constraints=False)
    errors = story_placement_errors(
        arena_id=story.arena_id, category=story.category, subgroup=story.subgroup
    )
    if errors:
        raise ValidationError(errors)
    story.save()
    Cell.objects.bulk_create(
        Cell(story=story, product=p, verdict=Verdict.NA)
        for p in Product.all_objects.filter(arena_id=story.arena_id)
    )
    arena_mark_stale(arena_id=story.arena_id)
    return story


@transaction.atomic
def product_add(*, product: Product) -> Product:
    """Save a new product with an ``n/a`` cell for every story of its arena (to be judged), and
    schedule the recomputation."""
    product.name = clean_text(product.name).strip()
    product.save()
    Cell.objects.bulk_create(
        Cell(story=s, product=product, verdict=Verdict.NA)
        for s in Story.all_objects.filter(arena_id=product.arena_id)
    )
    arena_mark_stale(arena_id=product.arena_id)
    return product


def _set_retired(model: type[Story] | type[Product], *, pk: int, retired: bool) -> bool:
    now = timezone.now()
    done = model.all_objects.filter(pk=pk, retired_at__isnull=retired).update(
        retired_at=now if retired else None, version=F("version") + 1, edited_at=now
    )
    if done:
        arena_id = model.all_objects.filter(pk=pk).values_list("arena_id", flat=True).get()
        if not retired:  # back on the pages: every product × story pair has a cell to show
            stories = Story.all_objects.filter(arena_id=arena_id)
            products = Product.all_objects.filter(arena_id=arena_id)
            if model is Story:
                stories = stories.filter(pk=pk)
            else:
                products = products.filter(pk=pk)
            Cell.objects.bulk_create(
                [Cell(story=s, product=p, verdict=Verdict.NA) for s in stories for p in products],
                ignore_conflicts=True,
            )
        arena_mark_stale(arena_id=arena_id)
    return bool(done)


@transaction.atomic
def story_retire(*, story: Story, retired: bool = True) -> bool:
    """Retire a story (hidden from pages and scores; its cells, flags, decisions and history stay),
    or bring it back with ``retired=False``. Stories are never deleted."""
    return _set_retired(Story, pk=story.pk, retired=retired)


@transaction.atomic
def product_retire(*, product: Product, retired: bool = True) -> bool:
    """Retire a product, or bring it back; products are never deleted."""
    return _set_retired(Product, pk=product.pk, retired=retired)
