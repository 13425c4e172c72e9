"""An uncached page reads as many queries for the 30 × 300 arena as for the bundled 6 × 53 one:
no query per product, story, cell or adjacent arena."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import Arena
from products.models import Product
from stories.models import Story

pytestmark = pytest.mark.django_db

HX_MATRIX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "matrix"}


def pages(arena: Arena) -> list[tuple[str, dict[str, str]]]:
    a, b = Product.objects.filter(arena=arena).order_by("position")[:2]
    story = Story.objects.filter(arena=arena).order_by("position").first()
    base = arena.get_absolute_url()
    return [
        (base, {}),
        (f"{base}?persona={story.persona.slug}", HX_MATRIX),
        (f"{base}vs/{a.slug}-vs-{b.slug}/", {}),
        (f"{base}products/{a.slug}/", {}),
        (f"{base}stories/{story.pk}/", {}),
        (f"{base}disputes/", {}),
        (f"/api/arenas/{arena.slug}/", {}),
        (f"/api/arenas/{arena.slug}/matrix/", {}),
    ]


def counts(client, arena: Arena) -> list[int]:
    """Each page's queries on its second request (the first fills what is kept per version)."""
    found = []
    for url, headers in pages(arena):
        assert client.get(url, **headers).status_code == 200, url
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url, **headers).status_code == 200, url
        found.append(len(queries))
    return found


def test_the_big_arena_costs_the_queries_of_the_small_one(
    client, settings, seeded_arena, big_arena
):
    settings.PAGE_CACHE = False
    assert seeded_arena.adjacent.exists()  # (one per adjacent arena would show)
    assert counts(client, seeded_arena) == counts(client, big_arena)
