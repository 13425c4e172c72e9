"""``GET /api/arenas/<arena>/`` with a caller's weights (``?weights=``): the leaderboard ranked by
the published formula with them, the weights echoed, a 400 for what cannot be read; every row's
``pa_range`` and the persona winners' ranges; the schema says all of it; queries stay flat."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import ProductScore
from arena.scoring.results import Part, Weights, personal_score, score_range
from tests.web.api.test_arenas import QUERY_BOUNDS

pytestmark = pytest.mark.django_db

URL = "/api/arenas/durable-execution-engines/"
CATEGORY_SLUGS = [
    "agent-workloads", "agenticness", "automation-depth", "developer-experience",
    "human-in-the-loop", "observability-debugging", "openness", "operations-hosting",
    "performance-scale", "privacy-posture", "reliability-recovery", "triggers-scheduling",
    "versioning-deployment", "workflow-authoring",
]  # fmt: skip


@pytest.fixture
def api(client, settings):
    settings.PAGE_CACHE = False

    def get(url: str, status: int = 200):
        response = client.get(url)
        assert response.status_code == status, response.content[:500]
        return response.json()

    return get


def parts(product: str) -> list[Part]:
    score = ProductScore.objects.get(product__slug=product)
    return [Part(*p) for p in score.parts]


def test_every_row_has_its_range_and_persona_winners_theirs(api, seeded_arena):
    body = api(URL)
    for row in body["leaderboard"]:
        low, high = row["pa_range"]
        assert low <= row["pa_score"] <= high
        assert "personal_score" not in row and "published_rank" not in row
    assert "weights" not in body and "persona_weights" not in body
    backend = next(p for p in body["personas"] if p["persona"] == "backend-developer")
    stored = ProductScore.objects.get(product__slug=backend["winner"]["product"])
    assert backend["winner"]["range"] == stored.persona_ranges["backend-developer"]
    low, high = backend["winner"]["range"]
    assert low <= backend["winner"]["score"] <= high
    assert len(backend["runner_up"]["range"]) == 2


def test_weights_rank_the_leaderboard_and_are_echoed(api, seeded_arena):
    published = {r["product"]["slug"]: r for r in api(URL)["leaderboard"]}
    body = api(f"{URL}?weights=privacy-posture:3,agenticness:0,backend-developer:2")
    weights = Weights(
        categories={"Privacy posture": 3, "Agenticness": 0}, personas={"backend-developer": 2}
    )
    rows = body["leaderboard"]
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    for row in rows:
        slug = row["product"]["slug"]
        assert row["personal_score"] == personal_score(parts(slug), weights)
        assert row["personal_range"] == list(score_range(parts(slug), weights))
        assert row["published_rank"] == published[slug]["rank"]
        assert row["pa_range"] == published[slug]["pa_range"]
        assert row["vs"] == published[slug]["vs"]  # the stored pairing, as without weights
    scores = [r["personal_score"] for r in rows]
    assert scores == sorted(scores, reverse=True)
    assert [r["product"]["slug"] for r in rows] != sorted(
        published, key=lambda s: published[s]["rank"]
    )
    assert list(body["weights"]) == CATEGORY_SLUGS
    assert body["weights"]["privacy-posture"] == 3 and body["weights"]["agenticness"] == 0
    assert sum(body["weights"].values()) == 3 + 12
    assert body["persona_weights"] == {
        "agent-builder": 1, "ai-native": 1, "backend-developer": 2, "platform-engineer": 1
    }  # fmt: skip


def test_all_weights_normal_give_the_published_order(api, seeded_arena):
    published = api(URL)["leaderboard"]
    rows = api(f"{URL}?weights=privacy-posture:1")["leaderboard"]
    assert [r["product"]["slug"] for r in rows] == [r["product"]["slug"] for r in published]
    assert all(r["personal_score"] == r["pa_score"] for r in rows)
    assert all(r["rank"] == r["published_rank"] for r in rows)


@pytest.mark.parametrize(
    ("weights", "said"),
    [
        ("privacy-posture:4", "“privacy-posture:4” (a weight is 0, 1, 2 or 3)"),
        ("nope:2", "“nope:2” (no category or user type “nope”)"),
        ("privacy-posture", "“privacy-posture” (write key:level)"),
        ("privacy-posture:3,agenticness:-1", "“agenticness:-1” (a weight is 0, 1, 2 or 3)"),
    ],
)
def test_weights_that_cannot_be_read_are_refused(api, seeded_arena, weights, said):
    body = api(f"{URL}?weights={weights}", status=400)
    assert said in body["weights"][0]
    assert body["weights"][0].endswith("Write <category or user type>:<0-3>, separated by commas.")


def test_the_schema_describes_weights_and_ranges(client, db):
    schema = client.get("/api/schema/?format=json").json()
    detail = schema["paths"]["/api/arenas/{slug}/"]["get"]
    assert [p["name"] for p in detail["parameters"] if p["in"] == "query"] == ["weights"]
    assert "400" in detail["responses"]
    row = schema["components"]["schemas"]["LeaderboardRow"]["properties"]
    for name in ("pa_range", "personal_score", "personal_range", "published_rank"):
        assert name in row
    assert row["pa_range"]["nullable"] is True and row["pa_range"]["maxItems"] == 2
    arena = schema["components"]["schemas"]["ArenaDetail"]["properties"]
    assert "weights" in arena and "persona_weights" in arena
    scored = schema["components"]["schemas"]["PersonaScored"]["properties"]
    assert "range" in scored


def test_queries_with_weights_are_one_more_and_flat(client, seeded_arena, big_arena, settings):
    """Weights add one query, the stored score parts they re-score (kept per content version on a
    migrated database), whatever the arena's size."""
    settings.PAGE_CACHE = False
    bound = QUERY_BOUNDS["/api/arenas/{slug}/"]
    counts = []
    for arena, weights in (
        (seeded_arena, "privacy-posture:3,backend-developer:0"),
        (big_arena, "reliability-recovery:3,ai-native:0"),
    ):
        for query in ("", f"?weights={weights}"):
            with CaptureQueriesContext(connection) as ctx:
                response = client.get(f"/api/arenas/{arena.slug}/{query}")
            assert response.status_code == 200, response.content[:300]
            counts.append(len(ctx.captured_queries))
    without, weighted = counts[::2], counts[1::2]
    assert len(set(without)) == len(set(weighted)) == 1, counts
    assert weighted[0] == without[0] + 1 and weighted[0] <= bound + 1, counts
