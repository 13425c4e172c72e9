"""Writes of the stories of an arena: adding, editing and retiring a story, and the cells every
product × story pair holds (``cells_fill``), which products' writes (``products.services``) share.

Every change that can move a score schedules the arena's recomputation (``arena_mark_stale``); any
other change of what its pages show moves its content version (``arena_content_changed``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from arena.models import Category, SubGroup
from arena.recompute import arena_content_changed, arena_mark_stale
from arena.text import clean_text
from products.models import Product
from stories.conflicts import Fields, versioned_update
from stories.models import Cell, Story
from stories.values import Verdict

# what can move a score when it changes
STORY_SCORE_FIELDS = ("weight", "persona", "category", "subgroup")


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
    *, story: Story, changes: Fields, base_version: int | None = None, base: Fields | None = None
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
    return editable_update(
        story,
        what="story",
        changes=changes,
        base_version=base_version,
        base=base,
        score_fields=STORY_SCORE_FIELDS,
    )


def editable_update(
    row: Story | Product,
    *,
    what: str,
    changes: dict[str, Any],
    base_version: int | None,
    base: dict[str, Any] | None,
    score_fields: Iterable[str],
) -> list[str]:
    """An editor's change of a story or a product (``versioned_update``), marked as theirs: the
    arena recomputes when a field that can move a score (``score_fields``) was written, its pages
    change when any other was. Returns the fields written."""
    written = versioned_update(
        type(row), obj=row, what=what, changes=changes, base_version=base_version, base=base
    )
    if written:
        type(row).all_objects.filter(pk=row.pk).update(edited_at=timezone.now())
    if set(written) & set(score_fields):
        arena_mark_stale(arena_id=row.arena_id)
    elif written:
        arena_content_changed(arena_id=row.arena_id)
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
    cells_fill(arena_id=story.arena_id, story=story)
    arena_mark_stale(arena_id=story.arena_id)
    return story


def cells_fill(
    *, arena_id: int, story: Story | None = None, product: Product | None = None
) -> None:
    """An ``n/a`` cell (to be judged) for every product × story pair of the arena that has none,
    of ``story`` or ``product`` when given: every pair on the pages has a cell to show."""
    stories = Story.all_objects.filter(arena_id=arena_id)
    products = Product.all_objects.filter(arena_id=arena_id)
    if story is not None:
        stories = stories.filter(pk=story.pk)
    if product is not None:
        products = products.filter(pk=product.pk)
    Cell.objects.bulk_create(
        [Cell(story=s, product=p, verdict=Verdict.NA) for s in stories for p in products],
        ignore_conflicts=True,
    )


def retire_set(row: Story | Product, *, retired: bool) -> bool:
    """Retire a story or a product (hidden from pages and scores; its cells, flags, decisions and
    history stay), or bring it back; whether it changed. Back on the pages, every pair it makes has
    a cell."""
    model = type(row)
    now = timezone.now()
    done = model.all_objects.filter(pk=row.pk, retired_at__isnull=retired).update(
        retired_at=now if retired else None, version=F("version") + 1, edited_at=now
    )
    if done:
        arena_id = model.all_objects.filter(pk=row.pk).values_list("arena_id", flat=True).get()
        if not retired:
            if isinstance(row, Story):
                cells_fill(arena_id=arena_id, story=row)
            else:
                cells_fill(arena_id=arena_id, product=row)
        arena_mark_stale(arena_id=arena_id)
    return bool(done)


@transaction.atomic
def story_retire(*, story: Story, retired: bool = True) -> bool:
    """Retire a story, or bring it back with ``retired=False``. Stories are never deleted."""
    return retire_set(story, retired=retired)
