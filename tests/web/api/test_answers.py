"""The read endpoints' answers validate against the published OpenAPI schema, with the nulls and
edge values the seeded arena may not have (schemathesis covers the seeded arena's): an arena with
no scores yet, a story with no sub-group and one with, n/a and unproved cells, a level head-to-head,
text outside ASCII; the big arena and a leaderboard ranked by a caller's weights."""

import pytest
import requests
import schemathesis

from tests.factories import (
    ArenaFactory,
    CellFactory,
    EvidenceFactory,
    ProductFactory,
    StoryFactory,
    SubGroupFactory,
)

pytestmark = pytest.mark.django_db

READS = {
    "/api/arenas/": "/api/arenas/",
    "/api/arenas/{slug}/": "/api/arenas/{slug}/",
    "/api/arenas/{slug}/matrix/": "/api/arenas/{slug}/matrix/",
    "/api/arenas/{slug}/compare/{a}/{b}/": "/api/arenas/{slug}/compare/{a}/{b}/",
    "/api/arenas/{slug}/compare/": "/api/arenas/{slug}/compare/?products={a},{b}",
}


@pytest.fixture
def answers(client, settings):
    """``get(path, url)``: the body of GET ``url``, checked against the schema of ``path``."""
    settings.PAGE_CACHE = False  # rendered by the view, not served from the page cache
    doc = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    schema = schemathesis.openapi.from_dict(doc)

    def get(path: str, url: str) -> dict:
        response = client.get(url)
        assert response.status_code == 200, response.content[:300]
        schema[path]["GET"].validate_response(
            schemathesis.Response(
                status_code=response.status_code,
                headers={name: [value] for name, value in response.headers.items()},
                content=response.content,
                request=requests.Request("GET", f"http://testserver{url}").prepare(),
                elapsed=0.0,
                verify=False,
            )
        )
        return response.json()

    return get


def every_read(answers, slug: str, a: str, b: str, weights: str = "") -> dict[str, dict]:
    got = {path: answers(path, url.format(slug=slug, a=a, b=b)) for path, url in READS.items()}
    if weights:
        got["weighted"] = answers("/api/arenas/{slug}/", f"/api/arenas/{slug}/?weights={weights}")
    return got


def test_an_unscored_arena_and_a_level_comparison_validate(answers):
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
            EvidenceFactory(cell=CellFactory(story=story, product=product), url="")
    CellFactory(story=lone, product=first, none=True)
    CellFactory(story=lone, product=second, na=True)

    got = every_read(answers, "small", "one", "two")
    listed = next(a for a in got["/api/arenas/"]["results"] if a["slug"] == "small")
    assert listed["leader"] is None and listed["call"] == {"leader": None, "close": False}
    assert listed["scores_computed_at"] is None and listed["name"] == "Small — “arena”"
    detail = got["/api/arenas/{slug}/"]
    assert detail["leaderboard"] == [] and detail["scores_computed_at"] is None
    assert "weights" not in detail
    pair = got["/api/arenas/{slug}/compare/{a}/{b}/"]
    assert pair["summary"]["leader"] == "drawn" and pair["call"] == {"leader": None, "close": True}
    assert {story["round"] for story in pair["stories"]} == {"drawn"}
    assert [story["group"] is None for story in pair["stories"]] == [False, True]
    quotes = [e for s in pair["stories"] for c in s["cells"].values() for e in c["evidence"]]
    assert quotes and all("url" not in e for e in quotes)  # left out, not null
    matrix = got["/api/arenas/{slug}/matrix/"]
    assert matrix["products"] == ["one", "two"] and len(matrix["stories"]) == 3
    lone_cells = next(s for s in matrix["stories"] if s["id"] == lone.pk)["cells"]
    assert lone_cells["two"]["verdict"] == "n/a" and lone_cells["one"]["proof"] is None


def test_the_big_arena_and_a_weighted_leaderboard_validate(answers, big_arena):
    got = every_read(
        answers, big_arena.slug, "product-017", "product-004", "reliability-recovery:3"
    )
    weighted = got["weighted"]["leaderboard"]
    assert [row["rank"] for row in weighted] == list(range(1, 31))
    assert sorted(row["published_rank"] for row in weighted) == list(range(1, 31))
    assert all("published_rank" not in row for row in got["/api/arenas/{slug}/"]["leaderboard"])
    first = got["/api/arenas/{slug}/matrix/"]
    assert (first["count"], first["page"], first["pages"]) == (300, 1, 3)
    stories, page = first["stories"], first
    while page["next"]:  # each page valid, 100 stories each, in matrix order
        path = page["next"].removeprefix("http://testserver")
        page = answers("/api/arenas/{slug}/matrix/", path)
        stories += page["stories"]
    assert page["page"] == 3 and len(stories) == len({s["id"] for s in stories}) == 300
    assert [len(s["cells"]) for s in stories] == [30] * 300


def test_the_schema_names_the_serializers_that_write_the_answers(client):
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()[
        "paths"
    ]
    answers = {
        path: paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        for path in READS
    }
    assert answers == {
        "/api/arenas/": {"$ref": "#/components/schemas/ArenaPage"},
        "/api/arenas/{slug}/": {"$ref": "#/components/schemas/ArenaDetail"},
        "/api/arenas/{slug}/matrix/": {"$ref": "#/components/schemas/Matrix"},
        "/api/arenas/{slug}/compare/{a}/{b}/": {"$ref": "#/components/schemas/Compare"},
        "/api/arenas/{slug}/compare/": {"$ref": "#/components/schemas/CompareMany"},
    }
