"""The front door as a newcomer meets it: the home page says what the site is and lists the arenas
with their first product and freshness; the search; the "X vs Y" picker; the 404 that suggests a
way on (with DEBUG off, and on with DEBUG_SITE_404); the API reference inside the site's pages;
adjacent arenas without a page of their own."""

from __future__ import annotations

import difflib
import re
from html import unescape
from urllib.parse import quote

import factory
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import ArenaFactory
from web.views.front import SEARCH_MAX_LENGTH
from web.views.pages import ARENAS_PER_PAGE as PER_PAGE

pytestmark = pytest.mark.django_db

ARENA = "durable-execution-engines"


def text_of(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def main_of(response) -> str:
    html = response.content.decode()
    return html[html.index('<main id="main"') : html.index("</main>")]


def section(response, heading_id: str) -> str:
    """The visible text of the section a heading of that id starts, to the next ``</section>``."""
    html = response.content.decode()
    start = html.index(f'id="{heading_id}"')
    part = html[start : html.index("</section>", start)]
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", part))).strip()


# ------------------------------------------------------------------------- home


def test_home_says_what_the_site_is_for_whom_and_how_verdicts_are_made_and_challenged(
    client, seeded_arena
):
    response = client.get("/")
    assert response.status_code == 200
    text = text_of(response)
    assert "Software products compared, verdict by verdict, on evidence" in text
    who = section(response, "who-h")
    for reader in ("Choosing a product", "Vendors and users who disagree", "Agents and programs"):
        assert reader in who
    how = section(response, "how-h")
    assert "user stories × products" in how and "proof level" in how and "probed" in how
    challenge = section(response, "challenge-h")
    assert "moderator" in challenge and "recent changes" in challenge
    html = main_of(response)
    assert f'href="{reverse("methodology")}"' in html
    assert f'<a href="{reverse("recent-changes")}">recent changes</a>' in html
    assert f'href="{reverse("llms-txt")}"' in html and 'href="/api/docs/"' in html


def test_home_lists_each_arena_with_its_first_product_and_freshness(client, seeded_arena):
    response = client.get("/")
    arenas = section(response, "arenas-h")
    assert "Durable Execution Engines" in arenas
    assert "First Temporal (too close to call with DBOS)" in arenas
    assert "Updated 2026-09-16" in arenas
    # the days its evidence was checked, oldest to newest, from the stored cells
    assert re.search(r"Evidence as of \d{4}-\d\d-\d\d( to \d{4}-\d\d-\d\d)?", arenas), arenas


def test_home_page_search_form_and_header_search_work_without_javascript(client, seeded_arena):
    form = r'<form class="(site-search|header-search)" role="search" ([^>]*)>'
    html = client.get("/").content.decode()
    # the home page has its own search box: the header's would be a second one
    assert [kind for kind, _ in re.findall(form, html)] == ["site-search"]
    assert '<label for="home-q">Search arenas, products and stories</label>' in html
    arena_page = client.get(f"/arenas/{ARENA}/").content.decode()
    assert [kind for kind, _ in re.findall(form, arena_page)] == ["header-search"]
    assert '<label for="site-q" class="visually-hidden">Search the site</label>' in arena_page
    for attributes in [a for _, a in re.findall(form, html + arena_page)]:
        assert 'method="get"' in attributes and f'action="{reverse("search")}"' in attributes


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_home_query_count_does_not_grow_with_arenas_or_products(
    client, request, django_assert_num_queries, seeded_arena, size
):
    request.getfixturevalue(size)  # one arena, or two of which one has 30 products
    # the site's version, how many arenas, the page's arenas, their counts (each kept per its
    # version: a change in one arena counts that one again), their products
    with django_assert_num_queries(5):
        assert client.get("/").status_code == 200


def arena_links(response) -> list[str]:
    return re.findall(r'<h3><a href="/arenas/([^/"]+)/">', response.content.decode())


def test_home_pages_the_arenas_and_each_page_links_the_next(client, django_assert_num_queries):
    arenas = ArenaFactory.create_batch(PER_PAGE + 6, name=factory.Sequence(lambda n: f"A{n:03d}"))
    first = client.get("/")
    shown = arena_links(first)
    assert shown == [a.slug for a in arenas[:PER_PAGE]]  # by name
    assert f"{PER_PAGE + 6} arenas · page 1 of 2" in text_of(first)
    assert 'href="?page=2#arenas-h">next →</a>' in first.content.decode()
    with django_assert_num_queries(5):  # the same few on a later page
        second = client.get("/?page=2")
    assert "Page 2 of 2" in text_of(second) and 'href="?page=1#arenas-h">← previous' in (
        second.content.decode()
    )
    assert '<link rel="canonical" href="http://testserver/?page=2">' in second.content.decode()
    assert "(page 2)" in second.content.decode().split("</title>")[0]
    later = arena_links(second)
    assert later == [a.slug for a in arenas[PER_PAGE:]]  # each arena on one page
    # a page past the end shows the last; a word shows the first
    assert arena_links(client.get("/?page=9")) == later
    assert arena_links(client.get("/?page=next")) == shown


def test_home_picker_lists_only_the_products_of_the_arenas_on_the_page(client, seeded_arena):
    ArenaFactory.create_batch(PER_PAGE, name=factory.Sequence(lambda n: f"Aa arena {n}"))
    html = client.get("/").content.decode()
    assert ARENA not in arena_links(client.get("/")) and "pick-durable" not in html
    assert 'value="temporal"' not in html
    assert 'value="temporal"' in client.get("/?page=2").content.decode()


# ------------------------------------------------------------------------- picker


def test_home_picker_lists_each_arenas_products_and_lands_on_their_head_to_head(
    client, seeded_arena
):
    html = client.get("/").content.decode()
    form = html[html.index('<form class="pair-pick"') :]
    form = form[: form.index("</form>")]
    assert f'action="{reverse("pick-pair")}"' in form and 'method="get"' in form
    assert f'<input type="hidden" name="arena" value="{ARENA}">' in form
    assert f'<label for="pick-{ARENA}-a">' in form and f'<label for="pick-{ARENA}-b">' in form
    assert re.findall(r'<option value="([^"]+)"', form).count("temporal") == 2
    assert '<option value="temporal" selected>' in form  # the first against the second
    assert '<option value="inngest" selected>' in form and "Compare</button>" in form
    response = client.get(reverse("pick-pair"), {"arena": ARENA, "a": "hatchet", "b": "dbos"})
    assert response.status_code == 302
    assert response["Location"] == reverse("head-to-head", args=[ARENA, "hatchet", "dbos"])
    assert client.get(response["Location"]).status_code == 200


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ({"arena": ARENA, "a": "dbos", "b": "dbos"}, 400, "Pick two different products"),
        ({"arena": ARENA, "a": "dbos"}, 400, "Pick an arena and two of its products"),
        ({"arena": ARENA, "a": "dbos", "b": "<b>x</b>"}, 400, "from the lists"),
        ({"arena": "no-such-arena", "a": "dbos", "b": "temporal"}, 404, "no arena 'no-such-arena'"),
        ({"arena": ARENA, "a": "dbos", "b": "nobody"}, 404, "has no product 'nobody'"),
    ],
)
def test_picker_says_what_is_wrong_with_a_pick(client, seeded_arena, query, status, message):
    response = client.get(reverse("pick-pair"), query)
    assert response.status_code == status
    text = text_of(response)
    assert message in text and "Compare products of Durable Execution Engines" in text
    assert "<b>x</b>" not in response.content.decode()


# ------------------------------------------------------------------------- search


def search(client, q, status=200):
    response = client.get(reverse("search"), {"q": q})
    assert response.status_code == status, (q, response.status_code, response.content[:300])
    return response


def test_search_finds_arenas_products_and_stories_grouped_by_kind_with_links(client, seeded_arena):
    response = search(client, "temporal")
    products = section(response, "found-products")
    assert "Temporal in Durable Execution Engines" in products
    html = main_of(response)
    assert f'<a href="{reverse("product-detail", args=[ARENA, "temporal"])}">Temporal</a>' in html
    assert "found-stories" not in html  # no story names it
    response = search(client, "durable execution")
    assert "Durable Execution Engines" in section(response, "found-arenas")
    assert f'<a href="{reverse("arena-detail", args=[ARENA])}">' in main_of(response)
    response = search(client, "MCP server")
    stories = section(response, "found-stories")
    assert "Connect an agent via an official MCP server" in stories
    assert re.search(rf'<a href="/arenas/{ARENA}/stories/\d+/">Connect an agent', main_of(response))
    assert "MCP server" in response.content.decode().split("<title>")[1].split("</title>")[0]


def test_search_that_finds_nothing_says_so_and_offers_the_arenas(client, seeded_arena):
    text = text_of(search(client, "zzyzzx"))
    assert "0 results for “zzyzzx”" in text and "browse the arenas" in text


def test_search_page_without_a_query_shows_the_form_only(client, seeded_arena):
    response = client.get(reverse("search"))
    assert response.status_code == 200
    html = main_of(response)
    assert '<label for="search-q">' in html
    assert "result" not in html and 'role="alert"' not in html


@pytest.mark.parametrize(
    ("q", "message"),
    [
        ("", "Type a word or two"),
        ("   ", "Type a word or two"),
        ("x" * (SEARCH_MAX_LENGTH + 1), f"at most {SEARCH_MAX_LENGTH} characters"),
        ("!!! ???", "at least 2 letters or digits"),
        ("a", "at least 2 letters or digits"),
    ],
)
def test_bad_searches_are_a_400_saying_what_to_type(client, seeded_arena, q, message):
    response = search(client, q, status=400)
    assert message in text_of(response)
    assert 'role="alert"' in response.content.decode()


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_search_query_count_does_not_grow_with_the_results(
    client, request, django_assert_num_queries, seeded_arena, size
):
    request.getfixturevalue(size)
    # the site's version, then one query per kind, whatever matches (the big arena's 300 stories)
    with django_assert_num_queries(4):
        response = search(client, "story product")
    assert response.status_code == 200


def test_search_lists_at_most_its_limit_of_each_kind(client, big_arena):
    response = search(client, "generated story")
    assert "(20, the first 20)" in section(response, "found-stories")


@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(q=st.text(max_size=150))
def test_search_never_answers_500_whatever_the_text(seeded_arena, q):
    client = Client(raise_request_exception=False)
    response = client.get(f"/search/?q={quote(q, safe='', errors='surrogatepass')}")
    assert response.status_code in (200, 400), (q, response.status_code)


# ------------------------------------------------------------------------- 404


def test_404_suggests_the_nearest_arena_and_offers_the_search(client, seeded_arena):
    response = client.get("/arenas/durable-execution-engine/")
    assert response.status_code == 404
    assert "Page not found" in text_of(response)
    near = section(response, "near-h")
    assert "Durable Execution Engines" in near
    assert f'<a href="/arenas/{ARENA}/">Durable Execution Engines</a>' in main_of(response)
    assert '<label for="missing-q">' in main_of(response)


def test_404_of_a_misspelt_product_suggests_it_first(client, seeded_arena):
    response = client.get(f"/arenas/{ARENA}/products/temporl/")
    assert response.status_code == 404
    links = re.findall(r'<li><a href="([^"]+)">', section_html(response, "near-h"))
    # the arena named in the path, then the product nearest to "temporl"
    assert links[:2] == [f"/arenas/{ARENA}/", f"/arenas/{ARENA}/products/temporal/"]


def test_404_of_a_misspelt_pair_suggests_both_products(client, seeded_arena):
    response = client.get(f"/arenas/{ARENA}/vs/inngst-vs-hatchett/")
    assert response.status_code == 404
    near = section(response, "near-h")
    assert "Inngest (Durable Execution Engines)" in near and "Hatchet" in near


def test_404_with_nothing_near_still_offers_the_search(client, seeded_arena):
    response = client.get("/qqqq/wwww/")
    assert response.status_code == 404
    assert "near-h" not in response.content.decode()
    assert '<label for="missing-q">' in main_of(response)


def section_html(response, heading_id: str) -> str:
    html = response.content.decode()
    start = html.index(f'id="{heading_id}"')
    return html[start : html.index("</section>", start)]


@pytest.mark.parametrize(
    "url", ["/arenas/durable-execution-engine/", f"/arenas/{ARENA}/products/temporl/"]
)
def test_debug_shows_the_sites_404_only_with_debug_site_404(client, seeded_arena, settings, url):
    # a missing route (the first) and a view's Http404 (the second)
    settings.DEBUG = True
    settings.DEBUG_SITE_404 = False
    technical = client.get(url)
    assert technical.status_code == 404
    assert "DEBUG = True" in technical.content.decode()
    settings.DEBUG_SITE_404 = True
    response = client.get(url)
    assert response.status_code == 404
    assert "DEBUG = True" not in response.content.decode()
    assert "Durable Execution Engines" in section(response, "near-h")


def test_debug_site_404_leaves_pages_that_exist_alone(client, seeded_arena, settings):
    settings.DEBUG, settings.DEBUG_SITE_404 = True, True
    assert client.get(f"/arenas/{ARENA}/").status_code == 200
    assert client.get("/methodology").status_code == 301  # still redirected to the slash
    assert client.get("/api/nothing/").json() == {"detail": "No such API address."}


def test_404_reads_a_fixed_number_of_queries(client, seeded_arena, big_arena):
    counts = []
    for url in ("/nothing/", f"/arenas/{ARENA}/stories/999999/", "/arenas/big/products/x/"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 404
        counts.append(len(queries))
    # the arenas and products, and the stories of the arena the path names (plus the view's own)
    assert max(counts) <= 8, counts


# ------------------------------------------------------------------------- API docs


def test_api_docs_are_inside_the_sites_pages(client, db):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<header class="site-header">' in html and '<footer class="site-footer">' in html
    assert '<a class="skip-link" href="#main">' in html
    assert "<h1>API reference</h1>" in html and '<div id="swagger-ui"' in html
    # every endpoint written out, readable without JavaScript
    reference = section(response, "endpoints-h")
    for endpoint in (
        "GET /api/arenas/",
        "GET /api/arenas/{slug}/compare/{a}/{b}/",
        "POST /api/flags/",
        "POST /api/flags/{id}/uphold/",
    ):
        assert endpoint in reference, endpoint
    assert "weights query Your weights" in reference
    assert "404 No such object." in reference
    assert re.search(r'<link rel="stylesheet" href="/static/[^"]*swagger-ui\.css">', html)
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert all("src=" in s for s in scripts), scripts  # no inline script: the CSP holds
    assert any("swagger-ui-bundle.js" in s for s in scripts)
    assert any("/api/docs/?script=" in s for s in scripts)
    assert "cdn" not in html.lower()
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in script.content.decode()


# ------------------------------------------------------------------------- adjacent


def test_adjacent_arenas_without_a_page_say_so_and_offer_a_search(client, seeded_arena):
    response = client.get(f"/arenas/{ARENA}/")
    adjacent = section(response, "adj-h")
    assert "Workflow Automation (no page yet)" in adjacent
    html = section_html(response, "adj-h")
    assert f'<a href="{reverse("search")}?q=Workflow+Automation">search for it</a>' in html
    assert f'<a href="{reverse("home")}#arenas-h">see the arenas we have</a>' in html


def test_a_long_made_up_address_is_a_404_that_compares_a_few_short_words(
    client, seeded_arena, monkeypatch
):
    """difflib takes time with the square of a text's length: the suggestions of a 404 compare
    a few parts of the address, each cut short, whatever its length."""
    compared: list[str] = []
    close_matches = difflib.get_close_matches

    def spy(word, *args, **kwargs):
        compared.append(word)
        return close_matches(word, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", spy)
    path = "/" + "/".join(f"durable-execution-engine-{i}" * 5 for i in range(300)) + "/"
    response = client.get(path[:7000])
    assert response.status_code == 404
    assert 0 < len(compared) <= 6 and max(len(word) for word in compared) <= 60


def test_search_matches_words_by_their_stem_on_postgresql_and_by_substring_elsewhere(
    client, seeded_arena
):
    story = "I run LLM agent loops as durable workflows"
    if connection.vendor == "postgresql":
        # full-text: "retrying" and the story's "retried" share their stem; ranked, best first
        found = section(search(client, "retrying crashes"), "found-stories")
        assert found.split(")", 1)[1].strip().startswith(story), found
    else:
        # every word a substring of the text, whatever its case
        assert story in section(search(client, "CHECKPOINT crash"), "found-stories")
        assert "found-stories" not in search(client, "retrying crashes").content.decode()
