"""A story stays inside its arena's categories; a product stays in its arena. The services refuse
the rest, whoever calls them (admin, import, a script)."""

import pytest
from django.core.exceptions import ValidationError

from arena.models import Category, SubGroup
from arena.services import structure_save
from ops.generate import arena_generate
from products.models import Product
from products.services import product_update
from stories.models import Cell, Story
from stories.services import story_add, story_update
from tests.forms import page_form


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


def test_a_category_stays_in_its_arena(two_arenas):
    one, two = two_arenas
    category = one.categories.first()
    category.arena = two
    with pytest.raises(ValidationError, match="stays in its arena"):
        structure_save(category, changed=["arena"])
    assert Category.objects.get(pk=category.pk).arena_id == one.pk


def test_the_category_admin_offers_no_arena_to_change(two_arenas, admin_client):
    one, two = two_arenas
    category = one.categories.first()
    url = f"/admin/arena/category/{category.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert 'name="arena"' not in page
    admin_client.post(url, {**page_form(admin_client, url, "category_form"), "arena": two.pk})
    assert Category.objects.get(pk=category.pk).arena_id == one.pk
