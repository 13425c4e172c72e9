"""Every invariant is a database constraint: violating it fails at the database, not just in forms."""

import pytest
from django.db import IntegrityError, transaction

from stories.models import Cell, Story
from stories.values import Proof, Verdict
from tests.factories import CellFactory, StoryFactory

pytestmark = pytest.mark.django_db


def violates(fn) -> bool:
    try:
        with transaction.atomic():
            fn()
    except IntegrityError:
        return True
    return False


@pytest.fixture
def cell():
    return CellFactory()


def update(cell, **values):
    return lambda: Cell.objects.filter(pk=cell.pk).update(**values)


@pytest.mark.parametrize(
    "values",
    [
        {"quality": 11},
        {"verdict": Verdict.NA, "proof": None, "quality": 5},  # n/a has no quality
        {"verdict": Verdict.NONE, "proof": Proof.CLAIMED, "quality": 0},  # none has no proof
        {"verdict": Verdict.NA, "proof": Proof.PROBED, "quality": None},  # n/a has no proof
        {"verdict": Verdict.FULL, "proof": None},  # evidenced verdict needs a proof
        {"verdict": Verdict.PARTIAL, "quality": None},  # applicable verdict needs a quality
        {"verdict": Verdict.NONE, "proof": None, "quality": 4},  # none means q = 0
        {"verdict": "great"},
        {"proof": "rumoured"},
    ],
)
def test_cell_constraints(cell, values):
    assert violates(update(cell, **values))


@pytest.mark.parametrize(
    "values",
    [
        {"verdict": Verdict.NONE, "proof": None, "quality": 0},
        {"verdict": Verdict.NA, "proof": None, "quality": None},
        {"verdict": Verdict.DISPUTED, "proof": Proof.AUTH_GATED, "quality": 10},
    ],
)
def test_valid_cell_values_pass(cell, values):
    assert not violates(update(cell, **values))


def test_one_cell_per_product_and_story(cell):
    assert violates(
        lambda: Cell.objects.create(story=cell.story, product=cell.product, verdict=Verdict.NA)
    )


@pytest.mark.parametrize("weight", [0, 4])
def test_story_weight_is_1_to_3(weight):
    story = StoryFactory()
    assert violates(lambda: Story.objects.filter(pk=story.pk).update(weight=weight))


def test_story_text_unique_per_arena():
    story = StoryFactory()
    assert violates(lambda: StoryFactory(arena=story.arena, text=story.text))


def test_the_same_story_text_in_another_arena_is_fine():
    story = StoryFactory()
    assert not violates(lambda: StoryFactory(text=story.text))
