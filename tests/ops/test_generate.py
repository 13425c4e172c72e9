"""``manage.py generate_arena``: a synthetic arena of the asked size, scored, or a refusal that
says why."""

import io

import pytest
from django.core.management import CommandError, call_command

from arena.models import Arena, ProductScore
from products.models import Product
from stories.models import Story


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_generate_arena_builds_a_scored_arena_of_the_asked_size():
    out = run("generate_arena", "--slug", "gen", "--products", "3", "--stories", "5")
    assert out.strip() == "Generated gen: 3 products × 5 stories."
    arena = Arena.objects.get(slug="gen")
    assert Product.objects.filter(arena=arena).count() == 3
    assert Story.objects.filter(arena=arena).count() == 5
    assert ProductScore.objects.filter(arena=arena).count() == 3


@pytest.mark.django_db
def test_generate_arena_refuses_an_impossible_size():
    with pytest.raises(CommandError):
        run("generate_arena", "--slug", "gen", "--products", "0", "--stories", "5")


@pytest.mark.django_db
def test_generate_arena_refuses_a_slug_in_use():
    run("generate_arena", "--slug", "gen", "--products", "1", "--stories", "1")
    with pytest.raises(CommandError, match="an arena with the slug 'gen' exists"):
        run("generate_arena", "--slug", "gen", "--products", "2", "--stories", "2")
    assert Product.objects.filter(arena__slug="gen").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["gen\n", "a b", "gén"])
def test_generate_arena_refuses_a_slug_the_pages_cannot_link(slug):
    with pytest.raises(CommandError, match="--slug .* is not a slug"):
        run("generate_arena", "--slug", slug, "--products", "1", "--stories", "1")
    assert not Arena.objects.exists()
