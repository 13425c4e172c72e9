"""A story stays inside its arena's categories; a product stays in its arena. The services refuse
the rest, whoever calls them (admin, import, a script)."""

import pytest
from django.core.exceptions import ValidationError

from arena.generate import arena_generate
from arena.models import SubGroup
from products.models import Product
from stories.models import Cell, Story
from stories.services import product_update, story_add, story_update


@pytest.fixture
def two_arenas(db):
    return arena_generate(slug="one", products=2, stories=4), arena_generate(
        slug="two", products=2, stories=4, seed=1
    )


def test_moving_a_product_to_another_arena_is_refused_and_changes_nothing(two_arenas):
    one, two = two_arenas
    product = Product.objects.filter(arena=one).first()
    with pytest.raises(ValidationError, match="stays in its arena"):
        product_update(product=product, changes={"arena": two})
    product.refresh_from_db()
    assert product.arena_id == one.pk
    assert set(Cell.objects.filter(product=product).values_list("story__arena", flat=True)) == {
        one.pk
    }


def test_a_story_cannot_take_a_category_of_another_arena(two_arenas):
    one, two = two_arenas
    story = Story.objects.filter(arena=one).first()
    with pytest.raises(ValidationError, match="category of this story's arena"):
        story_update(story=story, changes={"category": two.categories.first()})
    story.refresh_from_db()
    assert story.category.arena_id == one.pk


def test_a_new_story_needs_a_sub_group_of_its_own_category(two_arenas):
    one, _ = two_arenas
    first, second = one.categories.all()[:2]
    foreign_group = SubGroup.objects.create(category=second, name="Elsewhere", position=99)
    story = Story(
        arena=one,
        category=first,
        subgroup=foreign_group,
        persona=Story.objects.filter(arena=one).first().persona,
        text="A story filed under another category's sub-group",
        position=999,
    )
    with pytest.raises(ValidationError, match="sub-group of the story's category"):
        story_add(story=story)
    assert not Story.all_objects.filter(text=story.text).exists()
