"""Writes of the stories app. ``cell_set_verdict`` is the one way a verdict, proof or quality changes."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from stories.models import EVIDENCED, Cell, CellChange, Proof, Story, Verdict


def cell_check_values(*, verdict: str, proof: str | None, quality: int | None) -> dict[str, str]:
    """The cell invariants (also database constraints), as one message per field."""
    errors: dict[str, str] = {}
    if verdict not in Verdict.values:
        errors["verdict"] = f"Unknown verdict {verdict!r}; one of {', '.join(Verdict.values)}."
        return errors
    if proof is not None and proof not in Proof.values:
        errors["proof"] = f"Unknown proof {proof!r}; one of {', '.join(Proof.values)}."
    if verdict == "n/a":
        if quality is not None:
            errors["quality"] = "An n/a cell has no quality."
    elif quality is None:
        errors["quality"] = f"A {verdict} cell needs a quality from 0 to 10."
    elif not 0 <= quality <= 10:
        errors["quality"] = "Quality is from 0 to 10."
    elif verdict == "none" and quality != 0:
        errors["quality"] = "A none cell (no evidence found) has quality 0."
    if verdict in ("none", "n/a") and proof:
        errors["proof"] = f"A {verdict} cell has no proof level."
    if verdict in EVIDENCED and not proof and "proof" not in errors:
        errors["proof"] = f"A {verdict} cell needs a proof level."
    return errors


def cell_set_verdict(
    *,
    cell: Cell,
    verdict: str,
    proof: str | None,
    quality: int | None,
    by=None,
    note: str = "",
    kind: str = CellChange.Kind.ADMIN,
    expected_version: int | None = None,
    mark_stale: bool = True,
    record_unchanged: bool = False,
) -> CellChange | None:
    """Change a cell's verdict / proof / quality, record the change publicly and schedule the arena's
    recomputation. Returns None when nothing changes, unless ``record_unchanged`` (an upheld flag
    that keeps the values still counts against the product, so it is recorded).

    ``expected_version`` guards against a lost update: if the cell changed since the caller read it,
    ValidationError is raised and nothing is written (works on SQLite, which ignores row locks).
    """
    errors = cell_check_values(verdict=verdict, proof=proof, quality=quality)
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        if expected_version is not None and current.version != expected_version:
            raise ValidationError(
                "This cell was changed by someone else meanwhile; reload and try again."
            )
        old = (current.verdict, current.proof, current.quality)
        if old == (verdict, proof, quality) and not record_unchanged:
            return None
        updated = Cell.objects.filter(pk=cell.pk, version=current.version).update(
            verdict=verdict, proof=proof, quality=quality, version=F("version") + 1
        )
        if not updated:
            raise ValidationError(
                "This cell was changed by someone else meanwhile; reload and try again."
            )
        change = CellChange.objects.create(
            cell_id=cell.pk,
            kind=kind,
            old_verdict=old[0],
            old_proof=old[1],
            old_quality=old[2],
            new_verdict=verdict,
            new_proof=proof,
            new_quality=quality,
            changed_by=by if (by is not None and getattr(by, "is_authenticated", False)) else None,
            changed_at=timezone.now(),
            note=note,
        )
        cell.verdict, cell.proof, cell.quality = verdict, proof, quality
        cell.version = current.version + 1
        if mark_stale:
            from arena.services import arena_mark_stale

            arena_id = (
                Story.objects.filter(pk=current.story_id).values_list("arena_id", flat=True).get()
            )
            arena_mark_stale(arena_id=arena_id)
    return change


def cell_update_detail(*, cell: Cell, rationale: str) -> None:
    """Rationale edits do not move scores: no record, no recomputation."""
    if cell.rationale != rationale:
        cell.rationale = rationale
        cell.save(update_fields=["rationale"])


SCORE_FIELDS = ("weight", "persona", "category", "subgroup")


@transaction.atomic
def story_update(*, story: Story, **values) -> bool:
    """Change a story's text, weight, persona, category or sub-group; a change that can move a score
    schedules the arena's recomputation."""
    changed = [k for k, v in values.items() if getattr(story, k) != v]
    if not changed:
        return False
    for k in changed:
        setattr(story, k, values[k])
    if "weight" in changed:
        story.weight_published = True
    story.full_clean(validate_unique=False, validate_constraints=False)
    story.save(update_fields=[*changed, "weight_published"] if "weight" in changed else changed)
    if any(k in SCORE_FIELDS for k in changed):
        from arena.services import arena_mark_stale

        arena_mark_stale(arena_id=story.arena_id)
    return True


@transaction.atomic
def story_add(*, story: Story) -> Story:
    """Save a new story with an ``n/a`` cell for every product of its arena (to be judged), and
    schedule the recomputation."""
    from arena.services import arena_mark_stale
    from products.models import Product

    story.full_clean(validate_constraints=False)
    story.save()
    Cell.objects.bulk_create(
        Cell(story=story, product=p, verdict="n/a")
        for p in Product.objects.filter(arena_id=story.arena_id)
    )
    arena_mark_stale(arena_id=story.arena_id)
    return story


@transaction.atomic
def product_add(*, product) -> object:
    """Save a new product with an ``n/a`` cell for every story of its arena (to be judged), and
    schedule the recomputation."""
    from arena.services import arena_mark_stale

    product.save()
    Cell.objects.bulk_create(
        Cell(story=s, product=product, verdict="n/a")
        for s in Story.objects.filter(arena_id=product.arena_id)
    )
    arena_mark_stale(arena_id=product.arena_id)
    return product
