"""Every invariant is a database constraint: violating it fails at the database, not just in forms."""

import pytest
from django.db import IntegrityError, transaction

from stories.models import Cell, Story


def violates(fn) -> bool:
    try:
        with transaction.atomic():
            fn()
    except IntegrityError:
        return True
    return False


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.filter(story__arena=seeded_arena, verdict="full").first()


def update(cell, **values):
    return lambda: Cell.objects.filter(pk=cell.pk).update(**values)


@pytest.mark.parametrize(
    "values",
    [
        {"quality": 11},
        {"verdict": "n/a", "proof": None, "quality": 5},  # n/a has no quality
        {"verdict": "none", "proof": "claimed", "quality": 0},  # none has no proof
        {"verdict": "n/a", "proof": "probed", "quality": None},  # n/a has no proof
        {"verdict": "full", "proof": None},  # evidenced verdict needs a proof
        {"verdict": "partial", "quality": None},  # applicable verdict needs a quality
        {"verdict": "none", "proof": None, "quality": 4},  # none means q = 0
        {"verdict": "great"},
        {"proof": "rumoured"},
    ],
)
@pytest.mark.django_db
def test_cell_constraints(cell, values):
    assert violates(update(cell, **values))


@pytest.mark.django_db
def test_valid_cell_values_pass(cell):
    assert not violates(update(cell, verdict="none", proof=None, quality=0))
    assert not violates(update(cell, verdict="n/a", proof=None, quality=None))


@pytest.mark.django_db
def test_one_cell_per_product_and_story(cell):
    assert violates(
        lambda: Cell.objects.create(story=cell.story, product=cell.product, verdict="n/a")
    )


@pytest.mark.parametrize("weight", [0, 4])
@pytest.mark.django_db
def test_story_weight_is_1_to_3(seeded_arena, weight):
    story = Story.objects.filter(arena=seeded_arena).first()
    assert violates(lambda: Story.objects.filter(pk=story.pk).update(weight=weight))


@pytest.mark.django_db
def test_story_text_unique_per_arena(seeded_arena):
    story = Story.objects.filter(arena=seeded_arena).first()
    dup = Story(
        arena=seeded_arena,
        category=story.category,
        persona=story.persona,
        text=story.text,
        weight=1,
        position=999,
    )
    assert violates(dup.save)
