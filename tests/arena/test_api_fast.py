"""The read endpoints answer what their DRF serializers (the ones the OpenAPI schema describes)
would answer, byte for byte: same keys in the same order, same values and types."""

import itertools

import pytest
from rest_framework.renderers import JSONRenderer

from arena import selectors
from tests.factories import (
    ArenaFactory,
    CellFactory,
    EvidenceFactory,
    ProductFactory,
    StoryFactory,
    SubGroupFactory,
)
from web.api import serializers as s


def as_json(data) -> bytes:
    return JSONRenderer().render(data)


@pytest.fixture
def api_body(client, settings):
    settings.PAGE_CACHE = False  # rendered by the view, not served from the page cache

    def get(url: str) -> bytes:
        response = client.get(url)
        assert response.status_code == 200, response.content[:300]
        return response.content

    return get


def reference_detail(arena) -> bytes:
    """What the retrieve view answered when it went through ``ArenaDetailSerializer``."""
    data = {
        "slug": arena.slug,
        "name": arena.name,
        "description": arena.description,
        "story_count": arena.story_count,
        "cell_count": arena.cell_count,
        "updated": arena.updated,
        "evidence_as_of": arena.evidence_as_of,
        "scores_computed_at": arena.scores_computed_at,
        "scores_pending": arena.scores_pending,
        "products": selectors.arena_product_list(arena=arena),
        "leaderboard": selectors.arena_score_list(arena=arena),
        "personas": selectors.arena_persona_result_list(arena=arena),
    }
    return as_json(s.ArenaDetailSerializer(data).data)


def reference_compare(arena, a: str, b: str) -> bytes:
    pair = selectors.arena_product_pair_get(arena=arena, a=a, b=b)
    cmp = selectors.head_to_head_get(arena=arena, a=pair[a], b=pair[b])
    return as_json(s.CompareSerializer(cmp).data)


def assert_same_as_serializers(api_body, arena, pairs):
    arena = selectors.arena_get(slug=arena.slug)  # with the counts the views read
    assert api_body("/api/arenas/") == as_json(
        s.ArenaListSerializer(selectors.arena_list(), many=True).data
    )
    assert api_body(f"/api/arenas/{arena.slug}/") == reference_detail(arena)
    matrix = selectors.arena_matrix(arena=arena)
    assert api_body(f"/api/arenas/{arena.slug}/matrix/") == as_json(s.MatrixSerializer(matrix).data)
    for a, b in pairs:
        body = api_body(f"/api/arenas/{arena.slug}/compare/{a}/{b}/")
        assert body == reference_compare(arena, a, b), (a, b)


@pytest.mark.django_db
def test_seed_arena_answers_equal_the_serializers(api_body, seeded_arena):
    slugs = [p.slug for p in selectors.arena_product_list(arena=seeded_arena)]
    pairs = list(itertools.permutations(slugs, 2))  # both orders: ``a`` comes first
    assert len(pairs) == 30
    assert_same_as_serializers(api_body, seeded_arena, pairs)


@pytest.mark.django_db
def test_big_arena_answers_equal_the_serializers(api_body, big_arena):
    assert_same_as_serializers(
        api_body, big_arena, [("product-001", "product-030"), ("product-017", "product-004")]
    )


@pytest.mark.django_db
def test_unscored_arena_with_a_level_comparison_equals_the_serializers(api_body):
    """The nulls and edge values the two arenas above may not have: no scores yet (no leader, no
    leaderboard), a story with no sub-group and one with, n/a and unproved cells, a level
    head-to-head (leader and rounds "drawn"), quotes outside ASCII."""
    arena = ArenaFactory(slug="small", name="Small — “arena”", description="Ünïcode\u2028line")
    first = ProductFactory(arena=arena, slug="one", name="One")
    second = ProductFactory(arena=arena, slug="two", name="Two")
    grouped = StoryFactory(arena=arena, weight=3)
    grouped.subgroup = SubGroupFactory(category=grouped.category)
    grouped.save()
    plain = StoryFactory(arena=arena, category=grouped.category, text="Plain “story” \u2029")
    lone = StoryFactory(arena=arena)
    for story in (grouped, plain):
        for product in (first, second):
            cell = CellFactory(story=story, product=product)
            EvidenceFactory(cell=cell)
    CellFactory(story=lone, product=first, none=True)
    CellFactory(story=lone, product=second, na=True)
    assert arena.scores_computed_at is None
    assert_same_as_serializers(api_body, arena, [("one", "two"), ("two", "one")])
    data = s.compare_data(selectors.head_to_head_get(arena=arena, a=first, b=second))
    assert data["summary"]["leader"] == "drawn"
    assert {story["round"] for story in data["stories"]} == {"drawn"}
    assert [story["group"] is None for story in data["stories"]] == [False, True]


@pytest.mark.django_db
def test_the_schema_describes_the_answers_with_those_serializers(client):
    """The serializers the answers are checked against above are the ones the schema names."""
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()[
        "paths"
    ]
    answers = {
        path: paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        for path in (
            "/api/arenas/",
            "/api/arenas/{slug}/",
            "/api/arenas/{slug}/matrix/",
            "/api/arenas/{slug}/compare/{a}/{b}/",
        )
    }
    assert answers == {
        "/api/arenas/": {"type": "array", "items": {"$ref": "#/components/schemas/ArenaList"}},
        "/api/arenas/{slug}/": {"$ref": "#/components/schemas/ArenaDetail"},
        "/api/arenas/{slug}/matrix/": {"$ref": "#/components/schemas/Matrix"},
        "/api/arenas/{slug}/compare/{a}/{b}/": {"$ref": "#/components/schemas/Compare"},
    }
