"""Writes of an arena's stories, and the cells every product × story pair holds."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core.conflicts import Fields, editable_update, retire_set
from core.signals import arena_mark_stale
from core.text import clean_text
from products.models import Product
from stories.models import Cell, Story
from stories.values import Verdict


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
    cells_fill(arena_id=story.arena_id, story=story)
    arena_mark_stale(arena_id=story.arena_id)
    return story


def cells_fill(
    *, arena_id: int, story: Story | None = None, product: Product | None = None
) -> None:
    """An ``n/a`` cell for every pair of the arena (of ``story`` or ``product``) that has none."""
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
    if isinstance(row, Story):
        cells_fill(arena_id=row.arena_id, story=row)
    else:
        cells_fill(arena_id=row.arena_id, product=row)


@transaction.atomic
def story_retire(*, story: Story, retired: bool = True) -> bool:
    return retire_set(story, retired=retired)
