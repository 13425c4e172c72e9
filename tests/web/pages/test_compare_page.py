"""Comparing two to six products, on the page (``/arenas/<arena>/compare/?products=…``) and in the
API (``/api/arenas/<arena>/compare/?products=…``): the products in the order asked, the stored
scores, a round per story decided by ``compare_many`` with the best marked in words,
"differences only", the picker, refusals as 400s with a message (never a 500), links from the
arena page and the head-to-head, flat query counts and caching by the arena's content version."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import ProductScore
from arena.scoring.rounds import ManySummary, compare_many
from arena.scoring.tally import CellIn, StoryIn
from products.models import Product
from stories.models import Cell, Story
from stories.services import cell_correct
from stories.values import CellValue, Proof, Verdict
from tests.web.pages.test_pages import HX, get, squeeze, text_of

pytestmark = pytest.mark.django_db

ARENA = "/arenas/durable-execution-engines/"
PAGE = ARENA + "compare/"
API = "/api/arenas/durable-execution-engines/compare/"
FOUR = ["temporal", "inngest", "hatchet", "dbos"]
AGENT_LOOPS = "I run LLM agent loops as durable workflows"


def columns(html: str) -> list[str]:
    """The product names heading the round table's columns."""
    head = html[html.index('<table class="cmp-table">') :]
    head = head[head.index("<thead>") : head.index("</thead>")]
    return re.findall(r'<th scope="col">([^<]+)</th>', head)


def rounds(html: str) -> list[str]:
    """The round table's rows as text."""
    return [
        squeeze(unescape(re.sub(r"<[^>]+>", " ", row))).strip()
        for row in re.findall(r'<tr class="round[^"]*">(.*?)</tr>', html, flags=re.S)
    ]


def row_of(html: str, text: str) -> str:
    return next(r for r in rounds(html) if text in r)


def expected(arena, slugs: list[str]) -> ManySummary:
    """The rounds as the scoring module decides them from the database's cells."""
    products = {p.slug: p for p in Product.objects.filter(arena=arena)}
    keys = [products[s].pk for s in slugs]
    stories = [
        StoryIn(s.pk, s.weight, s.category.name, s.persona.slug)
        for s in Story.objects.filter(arena=arena).select_related("category", "persona")
    ]
    cells = [
        CellIn.of(c.value, story_id=c.story_id, product=c.product_id)
        for c in Cell.objects.filter(story__arena=arena, product_id__in=keys)
    ]
    return compare_many(stories, cells, keys)


# ------------------------------------------------------------------------- the page


def test_four_products_side_by_side_in_the_order_given(client, seeded_arena):
    for query in ("products=temporal,inngest,hatchet,dbos", "products=temporal&products=inngest"
                  "&products=hatchet&products=dbos", "products=temporal,inngest&products=hatchet,dbos,inngest"):  # fmt: skip
        response = get(client, f"{PAGE}?{query}")
        html = response.content.decode()
        assert columns(html) == ["Temporal", "Inngest", "Hatchet", "DBOS"], query
    text = text_of(response)
    assert "<h1>Temporal<span" in html and "4 products side by side" in text
    summary = expected(seeded_arena, FOUR)
    assert len(rounds(html)) == len(summary.rounds) == 51
    assert f"{summary.drawn} drawn" in text
    # the stored scores, each product's column in the order given
    scores = {s.product.slug: s for s in ProductScore.objects.select_related("product")}
    pa = " ".join(
        f"{scores[s].pa_score} /100, range ({scores[s].pa_low}–{scores[s].pa_high})" for s in FOUR
    )
    # each with its range; "▲ leads" only on a product whose range is clear of all the others'
    shown = re.search(r"PA Score with its range (.*?) Rounds best", text).group(1)
    assert shown == pa
    assert "Too close to call" in text and "▲ leads" not in text  # (their ranges overlap)
    privacy = " ".join(f"{scores[s].category_scores['Privacy posture']}/100" for s in FOUR)
    line = re.search(r"category Privacy posture (.*?) category", text).group(1)
    assert re.sub(r" \(highest\) ▲", "", line) == privacy
    # the highest of a category's row is marked in words for screen readers and by ▲, not by
    # colour alone
    assert "(highest) ▲" in text
    # per product: rounds best alone and shared, and the weights of the rounds it is best in
    keys = {p.slug: p.pk for p in Product.objects.all()}
    standing = summary.standings[keys["inngest"]]
    best = re.search(r"Rounds best alone \+ shared (.*?) Weighted", text).group(1)
    assert f"{standing.best} + {standing.shared} shared" in best
    assert f"{standing.weighted} (highest) ▲" in text


def test_each_round_marks_its_best_in_words(client, seeded_arena):
    html = get(client, f"{PAGE}?products=temporal,inngest,hatchet,dbos").content.decode()
    # Temporal, Inngest and DBOS have full U 9/10, Hatchet full C 7/10: a shared best
    assert row_of(html, AGENT_LOOPS).endswith(
        "3 ✓ full U 9/10 ★ shared best ✓ full U 9/10 ★ shared best ✓ full C 7/10 "
        "✓ full U 9/10 ★ shared best"
    )
    # one alone: "best"; a drawn round says so; n/a is shown as such and never best
    assert row_of(html, "AI-generated insights").startswith("ai-native Get AI-generated")
    assert "= drawn" in row_of(html, "AI-generated insights")
    assert "n/a" in row_of(html, "AI-generated insights")
    streaming = row_of(html, "I stream live progress")
    assert streaming.endswith("✓ full C 8/10 ★ best") and "shared" not in streaming
    # every verdict links to its proof
    cell = Cell.objects.get(story__text__startswith=AGENT_LOOPS, product__slug="hatchet")
    assert f'<a href="/cells/{cell.pk}/">' in html
    # rounds under their category and sub-group headings, each category with its tally
    heading = '<span class="row-heading" role="heading" aria-level="{}">{}</span>'
    assert heading.format(3, "Agent workloads") in html
    assert heading.format(4, "Agent loops") in html
    assert "Best in: Temporal 0 (+1 shared) · Inngest 0 (+1 shared) · Hatchet 0 · DBOS 2" in (
        text_of(get(client, f"{PAGE}?products=temporal,inngest,hatchet,dbos"))
    )


def test_differences_only_hides_the_drawn_rounds_and_says_how_many(client, seeded_arena):
    summary = expected(seeded_arena, FOUR)
    response = get(client, f"{PAGE}?products=temporal,inngest,hatchet,dbos&diff=1")
    html = response.content.decode()
    shown = rounds(html)
    assert len(shown) == len(summary.rounds) - summary.drawn
    assert not any("= drawn" in r for r in shown)
    text = text_of(response)
    assert (
        f"Showing {len(shown)} of 51 rounds: differences only ({summary.drawn} drawn rounds hidden)"
        in text
    )
    assert (
        'href="/arenas/durable-execution-engines/compare/?products=temporal,inngest,hatchet,dbos"'
        in html
    )
    # the picker keeps the view
    assert '<input type="hidden" name="diff" value="1">' in html


def test_two_products_give_the_pairs_rounds_and_link_to_the_head_to_head(client, seeded_arena):
    html = get(client, f"{PAGE}?products=inngest,hatchet").content.decode()
    assert columns(html) == ["Inngest", "Hatchet"]
    assert '<a href="/arenas/durable-execution-engines/vs/inngest-vs-hatchet/"><strong>' in html
    pair = get(client, ARENA + "vs/inngest-vs-hatchet/")
    assert len(rounds(html)) == pair.content.decode().count('<tr id="story-') == 50
    assert "Rounds best alone + shared 25 7" in text_of(
        get(client, f"{PAGE}?products=inngest,hatchet")
    )


def test_the_picker_lists_the_chosen_first_and_every_pair_links_its_head_to_head(
    client, seeded_arena
):
    html = get(client, f"{PAGE}?products=dbos,hatchet,temporal").content.decode()
    picker = html[html.index('id="compare-picker"') :]
    boxes = re.findall(r'name="products" value="([^"]+)"( checked)?>', picker)
    assert boxes == [
        ("dbos", " checked"), ("hatchet", " checked"), ("temporal", " checked"),
        ("inngest", ""), ("trigger-dev", ""), ("restate", ""),
    ]  # fmt: skip
    assert 'method="get" action="/arenas/durable-execution-engines/compare/"' in picker
    assert 'hx-get="/arenas/durable-execution-engines/compare/"' in picker
    pairs = re.findall(r'<a href="/arenas/durable-execution-engines/vs/([a-z-]+)/">', html)
    assert pairs == ["dbos-vs-hatchet", "dbos-vs-temporal", "hatchet-vs-temporal"]
    # no pick at all: the picker alone, no message
    response = get(client, PAGE)
    assert (
        "Products to compare" in text_of(response)
        and 'role="alert"' not in response.content.decode()
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("products=inngest", "Pick at least 2 products to compare."),
        ("products=inngest,inngest", "Pick at least 2 products to compare."),
        ("products=inngest,nope", "No product 'nope' in this arena. Pick 2 to 6 from the list."),
        ("products=a,b,c,d,e", "No product 'a', 'b', 'c' … in this arena."),
    ],
)
def test_a_pick_that_cannot_be_compared_is_a_400_with_the_picker(
    client, seeded_arena, query, message
):
    response = get(client, f"{PAGE}?{query}", status=400)
    text = text_of(response)
    assert message in text and "Products to compare" in text
    assert 'role="alert"' in response.content.decode()
    assert response["Cache-Control"] == "no-store"


def test_more_than_six_products_is_a_400(client, big_arena):
    slugs = ",".join(f"product-{i:03}" for i in range(1, 8))
    response = get(client, f"/arenas/big/compare/?products={slugs}", status=400)
    assert "Pick at most 6 products to compare (7 picked)." in text_of(response)
    assert response.content.decode().count(" checked>") == 7  # the picker keeps them to untick


def test_unknown_arena_is_404(client, seeded_arena):
    get(client, "/arenas/nope/compare/?products=a,b", status=404)


def test_htmx_gets_the_comparison_alone_and_the_address_in_the_comma_form(client, seeded_arena):
    response = get(client, f"{PAGE}?products=temporal&products=dbos&diff=1", **HX)
    html = response.content.decode()
    assert (
        "<html" not in html
        and 'id="compare-picker"' in html
        and columns(html) == ["Temporal", "DBOS"]
    )
    assert response["HX-Push-Url"] == f"{PAGE}?products=temporal,dbos&diff=1"
    assert "HX-Request" in response["Vary"]
    wrong = get(client, f"{PAGE}?products=temporal", status=400, **HX)
    assert wrong["HX-Reswap"] == "innerHTML" and "Pick at least 2" in wrong.content.decode()


def test_the_arena_page_and_the_head_to_head_link_here(client, seeded_arena):
    html = get(client, ARENA).content.decode()
    link = re.search(r'<p class="compare-link"><a href="([^"]+)">([^<]+)</a>', html)
    assert link.group(2) == "Compare the top 4 side by side"
    top = get(client, unescape(link.group(1)))
    assert columns(top.content.decode()) == ["Temporal", "DBOS", "Inngest", "Trigger.dev"]
    pair = get(client, ARENA + "vs/inngest-vs-hatchet/").content.decode()
    assert f'<a href="{PAGE}?products=inngest,hatchet#compare-picker">add a product</a>' in pair


def test_the_compare_link_follows_the_ranking_shown(client, seeded_arena):
    """Your weights re-rank the board in place: "Compare the top 4" follows, out of band."""
    weights = "?weights=agenticness:0,privacy-posture:3"
    html = get(client, ARENA + weights).content.decode()
    link = re.search(r'<p class="compare-link"><a href="([^"]+)">', html).group(1)
    top = ["Temporal", "Inngest", "DBOS", "Restate"]  # Restate passes Trigger.dev
    assert columns(get(client, unescape(link)).content.decode()) == top
    fragment = get(
        client, ARENA + weights, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="leaderboard"
    ).content.decode()
    swap = re.search(
        r'<div hx-swap-oob="innerHTML:#compare-top"><p class="compare-link"><a href="([^"]+)">',
        re.sub(r">\s+<", "><", fragment),
    )
    assert unescape(swap.group(1)) == unescape(link)


def test_a_changed_verdict_shows_at_once(client, seeded_arena):
    url = f"{PAGE}?products=temporal,inngest,hatchet,dbos"
    first = get(client, url)
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    cell = Cell.objects.get(story__text__startswith=AGENT_LOOPS, product__slug="hatchet")
    cell_correct(cell=cell, value=CellValue(Verdict.FULL, Proof.PROBED, 10), note="probed")
    second = get(client, url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert second["ETag"] != first["ETag"]
    # Hatchet alone is best now; the others no longer share it
    assert row_of(second.content.decode(), AGENT_LOOPS).endswith(
        "3 ✓ full U 9/10 ✓ full U 9/10 ✓ full T 10/10 ★ best ✓ full U 9/10"
    )


# ------------------------------------------------------------------------- the API


def test_api_compares_in_the_order_given(client, seeded_arena):
    data = client.get(f"{API}?products=hatchet,temporal&products=dbos").json()
    assert data["products"] == ["hatchet", "temporal", "dbos"]
    assert list(data["summary"]) == ["hatchet", "temporal", "dbos"]
    keys = {p.slug: p.pk for p in Product.objects.all()}
    summary = expected(seeded_arena, ["hatchet", "temporal", "dbos"])
    temporal = ProductScore.objects.get(product__slug="temporal")
    assert data["summary"]["temporal"] == {
        "pa_score": temporal.pa_score,
        "category_scores": temporal.category_scores,
        "best": summary.standings[keys["temporal"]].best,
        "shared": summary.standings[keys["temporal"]].shared,
        "weighted": summary.standings[keys["temporal"]].weighted,
    }
    assert data["drawn"] == summary.drawn
    slug_of = {pk: slug for slug, pk in keys.items()}
    assert [(s["id"], s["best"]) for s in data["stories"]] == [
        (r.story_id, [slug_of[k] for k in r.best]) for r in summary.rounds
    ]
    loops = next(s for s in data["stories"] if s["text"].startswith(AGENT_LOOPS))
    assert loops["best"] == ["temporal", "dbos"] and loops["weight"] == 3
    assert loops["category"] == "Agent workloads" and loops["group"] == "Agent loops"
    assert loops["cells"]["hatchet"] == {
        "id": Cell.objects.get(story_id=loops["id"], product__slug="hatchet").pk,
        "verdict": "full",
        "proof": "claimed",
        "quality": 7,
        "evidence_as_of": "2026-09-16",  # the pages' "Evidence as of"
        "backing": "quotes",  # a head-to-head page published its quotes
    }
    drawn = [s for s in data["stories"] if not s["best"]]
    assert len(drawn) == summary.drawn


@pytest.mark.parametrize(
    "query",
    ["", "?products=", "?products=inngest", "?products=inngest,nope", "?products=%00,inngest"],
)
def test_api_refuses_what_cannot_be_compared_with_a_400(client, seeded_arena, query):
    response = client.get(f"{API}{query}")
    assert response.status_code == 400
    assert list(response.json()) == ["products"] and response.json()["products"][0].startswith(
        ("Pick", "No product")
    )


def test_api_unknown_arena_is_404_and_the_pair_route_still_answers(client, seeded_arena):
    assert client.get("/api/arenas/nope/compare/?products=a,b").status_code == 404
    pair = client.get(f"{API}inngest/hatchet/").json()
    assert pair["summary"]["won"] == {"inngest": 25, "hatchet": 7}


def test_the_schema_shows_the_endpoint(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/arenas/{slug}/compare/"]["get"]
    assert [p["name"] for p in operation["parameters"] if p["in"] == "query"] == ["products"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/CompareMany"
    }
    assert {"200", "400", "404", "429"} <= set(operation["responses"])
    story = schema["components"]["schemas"]["CompareManyStory"]["properties"]
    assert {"id", "text", "persona", "category", "group", "weight", "best", "cells"} <= set(story)
    assert "/api/arenas/{slug}/compare/{a}/{b}/" in schema["paths"]


# ------------------------------------------------------------------------- query counts

# The same bound at 6 × 53 and 30 × 300 with six products (one query more for the page cache's look-up
# of the arena's content version): the arena, its products, its stories, the six products' cells,
# the stored scores.
QUERY_BOUND = 6


@pytest.mark.parametrize("prefix", ["/arenas/{slug}/compare/", "/api/arenas/{slug}/compare/"])
def test_query_counts_are_flat_from_seed_to_big(
    client, seeded_arena, big_arena, settings, prefix, django_assert_max_num_queries
):
    settings.PAGE_CACHE = False
    counts = []
    for arena in (seeded_arena, big_arena):
        slugs = list(
            Product.objects.filter(arena=arena)
            .order_by("-position")
            .values_list("slug", flat=True)[:6]
        )
        url = prefix.format(slug=arena.slug) + "?products=" + ",".join(slugs)
        with django_assert_max_num_queries(QUERY_BOUND):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_a_cached_comparison_costs_one_query(client, seeded_arena, django_assert_num_queries):
    for url in (f"{PAGE}?products=inngest,hatchet,dbos", f"{API}?products=inngest,hatchet,dbos"):
        first = get(client, url)
        assert first["ETag"].startswith('W/"') and "public" in first["Cache-Control"]
        with django_assert_num_queries(1):  # the arena's content version
            again = get(client, url)
        assert again.content == first.content


def test_the_methodology_publishes_the_rule(client, db):
    text = text_of(get(client, "/methodology/"))
    rule = text[text.index("Comparing more than two Two to six") :]
    for phrase in ("at least two", "sits out", "shared best", "drawn", "exactly the head-to-head"):
        assert phrase in rule[:900], phrase
    assert 'href="#compare"' in get(client, "/methodology/").content.decode()
