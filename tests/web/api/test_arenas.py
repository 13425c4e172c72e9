"""The JSON API against the seed pages, and its query counts."""

import factory
import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.scoring.rounds import round_winner
from arena.scoring.tally import CellIn
from arena.selectors.arenas import arena_get
from arena.selectors.matrix import arena_matrix
from core.text import arena_slugify
from tests.factories import ArenaFactory
from web.api.views import ArenaPages

PAGE = ArenaPages.page_size


def slug(name: str) -> str:
    return arena_slugify(name)


@pytest.fixture
def api(client):
    def get(url, status=200):
        response = client.get(url)
        assert response.status_code == status, response.content[:300]
        return response.json() if status == 200 else response

    return get


@pytest.mark.django_db
def test_arena_list(api, seeded_arena):
    data = api("/api/arenas/")
    assert (data["count"], data["next"], data["previous"]) == (1, None, None)
    rows = data["results"]
    assert [(r["slug"], r["name"], r["story_count"], r["product_count"]) for r in rows] == [
        ("durable-execution-engines", "Durable Execution Engines", 53, 6)
    ]
    assert rows[0]["leader"]["slug"] == "temporal"


@pytest.mark.django_db
def test_the_arena_list_is_paged_by_name_with_links_to_the_next(api, client):
    arenas = ArenaFactory.create_batch(PAGE + 5, name=factory.Sequence(lambda n: f"A{n:03d}"))
    with CaptureQueriesContext(connection) as queries:
        first = api("/api/arenas/")
    # the site's version, how many arenas, the page's arenas and their counts (kept per version)
    assert len(queries) == 4
    assert first["count"] == PAGE + 5 and first["previous"] is None
    assert first["next"] == "http://testserver/api/arenas/?page=2"
    assert [r["slug"] for r in first["results"]] == [a.slug for a in arenas[:PAGE]]
    last = api("/api/arenas/?page=2")
    assert last["next"] is None and last["previous"] == "http://testserver/api/arenas/"
    assert [r["slug"] for r in last["results"]] == [a.slug for a in arenas[PAGE:]]
    # as the site's pages (Django's Paginator.get_page): out of range the last page, no page
    # number the first
    for out in ("3", "-1", "1234567890"):
        assert api(f"/api/arenas/?page={out}")["results"] == last["results"], out
    for wrong in ("", "x", "last", "1.5", "²"):
        assert api(f"/api/arenas/?page={wrong}")["results"] == first["results"], wrong


@pytest.mark.django_db
def test_matrix_equals_the_arena_page(api, seeded_arena, seed_record):
    data = api("/api/arenas/durable-execution-engines/matrix/")
    ov = seed_record.overview
    assert data["products"] == [slug(p) for p in ov.products]
    assert len(data["stories"]) == 53
    n = 0
    for got, want in zip(data["stories"], ov.stories, strict=True):
        assert (got["text"], got["persona"], got["category"], got["group"]) == (
            want.text,
            want.persona,
            want.category,
            want.group,
        )
        for product, mark in want.cells:
            cell = got["cells"][slug(product)]
            assert (cell["verdict"], cell["proof"], cell["quality"]) == (
                mark.verdict,
                mark.proof,
                mark.quality,
            )
            n += 1
    assert n == 318
    assert (data["count"], data["page"], data["pages"], data["next"]) == (53, 1, 1, None)


@pytest.mark.parametrize(("asked", "page"), [("2", 3), ("99", 3), ("x", 1), ("-1", 3), ("", 1)])
def test_the_matrix_is_paged_as_every_list_is(
    api, big_arena, monkeypatch, django_assert_max_num_queries, asked, page
):
    """100 stories a page (300 here): out of range the last page, no number the first, and the
    same queries on every page."""
    with django_assert_max_num_queries(6):
        data = api(f"/api/arenas/{big_arena.slug}/matrix/?page={asked}")
    assert (data["count"], data["pages"], data["page"]) == (300, 3, page if asked != "2" else 2)
    order = [r.story.pk for r in arena_matrix(arena=arena_get(slug=big_arena.slug)).rows]
    start = 100 * (data["page"] - 1)
    assert [s["id"] for s in data["stories"]] == order[start : start + 100]
    following = f"http://testserver/api/arenas/{big_arena.slug}/matrix/?page={data['page'] + 1}"
    assert data["next"] == (following if data["page"] < 3 else None)


@pytest.mark.django_db
def test_arena_detail_leaderboard_counts(api, seeded_arena, seed_record):
    data = api("/api/arenas/durable-execution-engines/")
    # judged cells: the 318 of 53 stories × 6 products but the 12 judged not applicable
    assert (data["story_count"], data["cell_count"]) == (53, 318)
    assert (data["updated"], data["evidence_as_of"]) == ("2026-09-16", "2026-09-16")
    assert data["scores_computed_at"] and data["scores_pending"] is False
    board = {row["product"]["name"]: row for row in data["leaderboard"]}
    for published in seed_record.overview.leaderboard:
        row = board[published.product]
        assert (row["verified"], row["with_evidence"], row["disputed"]) == (
            published.verified,
            published.with_evidence,
            published.disputed,
        )
    assert [r["rank"] for r in data["leaderboard"]] == [1, 2, 3, 4, 5, 6]
    leader = data["leaderboard"][0]
    assert (leader["product"]["slug"], leader["vs"]) == ("temporal", "dbos")
    assert set(leader["category_scores"]) >= {"Agent workloads", "Reliability recovery"}
    backend = next(p for p in data["personas"] if p["persona"] == "backend-developer")
    assert (
        backend["winner"]["product"],
        backend["runner_up"]["product"],
        backend["story_count"],
    ) == (
        "inngest",
        "temporal",
        13,
    )


def assert_compare_equals_page(data, page):
    a, b = slug(page.a), slug(page.b)
    assert data["products"] == [a, b]
    assert len(data["stories"]) == len(page.stories)
    for got, want in zip(data["stories"], page.stories, strict=True):
        assert got["text"] == want.text
        assert got["number"] == want.number
        assert got["weight"] == want.weight
        assert got["round"] == ("drawn" if want.round == "drawn" else slug(want.round))
        for cell in want.cells:
            g = got["cells"][slug(cell.product)]
            assert (g["verdict"], g["proof"], g["quality"]) == (
                cell.value.verdict,
                cell.value.proof,
                cell.value.quality,
            )
            assert g["rationale"] == cell.rationale
            assert g["evidence"] == [
                {"source": e.source, "quote": e.quote, "checked_on": "2026-09-16"}
                for e in cell.evidence
            ]
            assert g["evidence_as_of"] == "2026-09-16"


@pytest.mark.django_db
def test_compare_equals_each_seed_head_to_head(api, seeded_arena, seed_record):
    for page in seed_record.compares:
        data = api(f"/api/arenas/durable-execution-engines/compare/{slug(page.a)}/{slug(page.b)}/")
        assert_compare_equals_page(data, page)
        won = data["summary"]["won"]
        assert won[slug(page.a)] == sum(1 for s in page.stories if s.round == page.a)
        assert data["summary"]["drawn"] == sum(1 for s in page.stories if s.round == "drawn")


@pytest.mark.django_db
def test_compare_any_other_pair_is_built_from_cells(api, seeded_arena, seed_record):
    """Trigger.dev vs Restate has no page; its cells are detailed on two others."""
    data = api("/api/arenas/durable-execution-engines/compare/trigger-dev/restate/")
    details = seed_record.details
    stories = [
        s
        for s in seed_record.overview.stories
        if dict(s.cells)["Trigger.dev"].verdict != "n/a"
        and dict(s.cells)["Restate"].verdict != "n/a"
    ]
    assert [s["text"] for s in data["stories"]] == [s.text for s in stories]
    for got, story in zip(data["stories"], stories, strict=True):
        marks = dict(story.cells)
        for name in ("Trigger.dev", "Restate"):
            g = got["cells"][slug(name)]
            m = marks[name]
            assert (g["verdict"], g["proof"], g["quality"]) == (m.verdict, m.proof, m.quality)
            d = details.get((story.text, name))
            if d is None:  # no page details this cell: verdict only, detail marked unpublished
                assert (g["rationale"], g["evidence"], g["detail_published"]) == ("", [], False)
                continue
            assert (g["rationale"], g["detail_published"]) == (d.rationale, True)
            assert [e["quote"] for e in g["evidence"]] == [e.quote for e in d.evidence]
        t, r = marks["Trigger.dev"], marks["Restate"]
        rule = round_winner(
            CellIn(0, "trigger-dev", t.verdict, t.proof, t.quality),
            CellIn(0, "restate", r.verdict, r.proof, r.quality),
        )
        assert got["round"] == rule


@pytest.mark.django_db
def test_compare_unknown_product_or_self_is_404(api, seeded_arena):
    api("/api/arenas/durable-execution-engines/compare/inngest/nope/", status=404)
    api("/api/arenas/durable-execution-engines/compare/inngest/inngest/", status=404)
    api("/api/arenas/nope/", status=404)


@pytest.mark.django_db
def test_api_is_read_only_for_anonymous(client, seeded_arena):
    assert client.post("/api/arenas/", {}).status_code in (401, 403, 405)
    assert client.delete("/api/arenas/durable-execution-engines/").status_code in (401, 403, 405)


@pytest.mark.django_db
def test_openapi_schema_and_reference_page(client, seeded_arena):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    body = schema.content.decode()
    for path in (
        "/api/arenas/",
        "/api/arenas/{slug}/matrix/",
        "/api/arenas/{slug}/compare/{a}/{b}/",
    ):
        assert path in body
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


# One bound per address, the same for 6 × 53 and 30 × 300: no query per row, cell or product.
# Rendered, not served from the page cache; each includes the content version the answer is
# cached and validated by (one query). A head-to-head reads the pair's stored PA Scores for who
# leads (one query), and the sources its published detail cites (one query).
QUERY_BOUNDS = {
    "/api/arenas/": 4,  # with how many arenas there are, and their counts
    "/api/arenas/{slug}/": 5,
    "/api/arenas/{slug}/matrix/": 5,
    "/api/arenas/{slug}/compare/{a}/{b}/": 8,
}


@pytest.mark.parametrize("url", sorted(QUERY_BOUNDS))
@pytest.mark.django_db
def test_api_queries_do_not_grow_with_the_arena(
    client, seeded_arena, big_arena, url, django_assert_max_num_queries, settings
):
    settings.PAGE_CACHE = False
    counts = []
    for arena, a, b in (
        (seeded_arena, "inngest", "hatchet"),
        (big_arena, "product-001", "product-030"),
    ):
        caches["pages"].clear()  # (the reads kept per version: each request reads afresh)
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url.format(slug=arena.slug, a=a, b=b))
        assert response.status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts
    with django_assert_max_num_queries(QUERY_BOUNDS[url]):
        client.get(url.format(slug=big_arena.slug, a="product-001", b="product-030"))
