"""Writes of the stories of an arena: adding, editing and retiring a story, and the cells every
product × story pair holds (``cells_fill``; a product placed on its arena announces itself through
``core.signals.placed``, which ``stories.apps`` connects here).

Every change that can move a score schedules the arena's recomputation (``arena_mark_stale``); any
other change of what its pages show moves its content version (``arena_content_changed``).
"""

from __future__ import annotations

from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.db import transaction

from core.conflicts import Fields
from core.records import editable_update, retire_set
from core.signals import arena_mark_stale
from core.text import clean_text
from products.models import Product
from stories.models import Cell, Story
from stories.values import Verdict


class Placed(Protocol):  # a category (of arena.models: the stories app does not import it)
    pk: Any
    arena_id: int


class InCategory(Protocol):  # a sub-group
    category_id: int


# what can move a score when it changes
STORY_SCORE_FIELDS = ("weight", "persona", "category", "subgroup")


def story_placement_errors(
    *, arena_id: int, category: Placed | None, subgroup: InCategory | None
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


def cells_fill_placed(sender: Any, *, row: Story | Product, **kwargs: Any) -> None:
    """``core.signals.placed``: a story or product added or brought back gets its cells."""
    if isinstance(row, Story):
        cells_fill(arena_id=row.arena_id, story=row)
    else:
        cells_fill(arena_id=row.arena_id, product=row)


@transaction.atomic
def story_retire(*, story: Story, retired: bool = True) -> bool:
    """Retire a story, or bring it back with ``retired=False``. Stories are never deleted."""
    return retire_set(story, retired=retired)
