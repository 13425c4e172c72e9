"""The must-have check's page (/arenas/<slug>/must-have/): the plain GET form and its canonical
address, every product's answer (meets, fails on which cell or fact, unknown) and how sure it is,
the visitor's weights ordering the products and carried in every link, what cannot be read (a
400 with a message), the page cache's bound, and a constant number of queries."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import resolve

from arena.models import Arena
from arena.selectors.leaderboard import arena_leaderboard
from products.models import Product
from stories.models import Cell, Story
from tests.web.pages.test_pages import ARENA, get, text_of
from web.http.pagekeys import Query
from web.params import MUST, MUST_KEPT, MUST_MAX, NEED, PAGE_PARAMS, WEIGHTS, weights_parse

pytestmark = pytest.mark.django_db

PAGE = f"{ARENA}must-have/"
MINE = "privacy-posture:3,agenticness:0"


def set_cell(story: Story, product: str, verdict: str, proof: str | None, quality: int | None):
    Cell.objects.filter(story=story, product__slug=product).update(
        verdict=verdict, proof=proof, quality=quality
    )
    return Cell.objects.get(story=story, product__slug=product)


def set_facts(**hosting_licence: tuple[str, str]) -> None:
    for slug, (hosting, licence) in hosting_licence.items():
        Product.objects.filter(slug=slug).update(hosting=hosting, licence=licence)


def answer_of(response, slug: str) -> str:
    html = response.content.decode()
    block = re.search(
        rf'<li class="must-row[^"]*" id="must-{slug}">(.*?)</li>\s*(?=<li class="must-row|</ol>)',
        html,
        re.S,
    )
    assert block, slug
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", block.group(1))).strip()


def names_in_order(response) -> list[str]:
    return re.findall(r'class="must-row[^"]*" id="must-([a-z0-9-]+)"', response.content.decode())


@pytest.fixture
def story(seeded_arena: Arena) -> Story:
    return Story.objects.filter(arena=seeded_arena).order_by("pk").first()


def test_the_form_works_without_script_and_lands_on_one_canonical_address(seeded_arena, story):
    client = Client()
    blank = get(client, PAGE)
    html = blank.content.decode()
    assert '<form id="must-form" class="must-form" method="get"' in html
    assert f'name="must" value="{story.pk}"' in html and 'name="need" value="self-hosted"' in html
    assert "must-row" not in html  # nothing chosen, nothing answered
    # the checkboxes send repeated parameters in form order: redirected to the canonical address
    # another story of the arena, sent before this one though its id is higher (ids are the
    # database's: never written out, PostgreSQL does not reuse them between tests)
    other = Story.objects.filter(arena=seeded_arena, pk__gt=story.pk).order_by("pk").first()
    assert other is not None
    sent = client.get(f"{PAGE}?need=open-source&need=self-hosted&must={other.pk}&must={story.pk}")
    assert sent.status_code == 302
    assert sent["Location"] == f"{PAGE}?must={story.pk},{other.pk}&need=self-hosted,open-source"
    page = get(client, sent["Location"])
    assert (
        page.content.decode().count('class="must-row')
        == Product.objects.filter(arena=seeded_arena, retired_at__isnull=True).count()
    )
    assert f'name="must" value="{story.pk}" checked' in page.content.decode()
    assert 'name="need" value="open-source" checked' in page.content.decode()


def test_each_product_meets_fails_on_a_cell_or_a_fact_or_is_unknown_and_says_how_sure(
    seeded_arena, story
):
    set_cell(story, "temporal", "full", "probed", 9)
    set_cell(story, "inngest", "full", "claimed", 8)
    dbos = set_cell(story, "dbos", "partial", "probed", 6)
    hatchet = set_cell(story, "hatchet", "none", None, 0)
    set_cell(story, "restate", "full", "community", 9)
    set_cell(story, "trigger-dev", "full", "probed", 9)
    set_facts(
        temporal=("both", "MIT"),
        inngest=("self-hosted", "Apache-2.0"),
        dbos=("self-hosted", "MIT"),
        hatchet=("self-hosted", "MIT"),
        restate=("managed", "BUSL-1.1"),
    )  # trigger-dev: nobody stated its hosting
    page = get(Client(), f"{PAGE}?must={story.pk}&need=self-hosted")
    assert "meets every must-have" in answer_of(page, "temporal")
    assert "certain" in answer_of(page, "temporal")
    assert "meets every must-have likely: rests on 1 unverified cell" in answer_of(page, "inngest")
    failing = answer_of(page, "dbos")
    assert (
        "fails 1 must-have certain" in failing and "verdict partial , probed (verified)" in failing
    )
    assert f'href="/cells/{dbos.pk}/"' in page.content.decode()
    none = answer_of(page, "hatchet")
    assert "fails 1 must-have likely" in none and "(not verified)" in none
    assert f'href="/cells/{hatchet.pk}/"' in page.content.decode()
    lacks = answer_of(page, "restate")
    assert "fails 1 must-have certain" in lacks and "lacks self-hosted" in lacks
    unknown = answer_of(page, "trigger-dev")
    assert "unknown" in unknown and "can’t tell yet" in unknown
    assert "nobody stated whether it is self-hosted" in unknown
    assert "2 of 6 products meet every must-have" in text_of(page)
    # an open-source licence: BUSL is source-available, not open source
    # meets (the surest first), unknown, then fails (likely before certain), each by the leaderboard
    assert names_in_order(page) == [
        "temporal",
        "inngest",
        "trigger-dev",
        "hatchet",
        "dbos",
        "restate",
    ]
    licence = get(Client(), f"{PAGE}?must={story.pk}&need=open-source")
    assert "lacks an open-source licence" in answer_of(licence, "restate")


def test_the_visitors_weights_order_the_products_and_travel_in_every_link(seeded_arena, story):
    client = Client()
    # nobody stated the seed's hosting: every answer is unknown, so the leaderboard alone orders
    published = names_in_order(get(client, f"{PAGE}?need=self-hosted"))
    board = arena_leaderboard(arena=seeded_arena, asked=weights_parse(MINE))
    canonical = board.weights_query
    weighted_page = get(client, f"{PAGE}?must={story.pk}&weights={canonical}")
    unknown_page = get(client, f"{PAGE}?need=self-hosted&weights={canonical}")
    ordered = names_in_order(unknown_page)
    assert ordered == [r.product.slug for r in board.rows]
    assert ordered != published  # (so the weights are what ordered them)
    html = weighted_page.content.decode()
    assert f'<input type="hidden" name="weights" value="{canonical}">' in html
    assert f'href="{ARENA}?weights={canonical}"' in html  # back to the arena, weights kept
    assert f'href="{PAGE}?weights={canonical}"' in html  # "Clear" keeps them too
    assert f'href="{PAGE}?must={story.pk}"' in html  # and the published order drops them
    # the form's repeated parameters keep the weights in the canonical address
    sent = client.get(f"{PAGE}?must={story.pk}&need=managed&weights={canonical}")
    assert sent.status_code == 200
    form = client.get(f"{PAGE}?need=managed&must={story.pk}&must={story.pk}&weights={canonical}")
    assert form["Location"] == f"{PAGE}?must={story.pk}&need=managed&weights={canonical}"
    # and the arena page links here with the weights it is ranked by
    arena_page = get(client, f"{ARENA}?weights={canonical}").content.decode()
    assert f'href="{PAGE}?weights={canonical}"' in arena_page
    # and when htmx re-ranks the board, the link follows the weights (swapped out of band)
    swapped = get(client, f"{ARENA}?weights={canonical}", HTTP_HX_REQUEST="true").content.decode()
    assert (
        f'<p id="must-link" class="must-link" hx-swap-oob="true"><a href="{PAGE}?weights={canonical}"'
        in swapped
    )
    reset = get(client, f"{ARENA}?weights=", HTTP_HX_REQUEST="true").content.decode()
    assert f'hx-swap-oob="true"><a href="{PAGE}">' in reset


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("must=abc", "A must-have story is given by its number, not 'abc'."),
        ("must=-1", "A must-have story is given by its number, not '-1'."),
        ("must=99999999", "No story 99999999 in this arena."),
        ("must=" + "9" * 40, "A must-have story is given by its number"),
        ("need=closed-source", "No fact 'closed-source' to require: one of self-hosted"),
        ("must=" + ",".join(str(i) for i in range(1, 30)), f"At most {MUST_MAX} must-have stories"),
    ],
)
def test_what_cannot_be_read_is_a_400_with_a_message_and_the_form(seeded_arena, query, message):
    response = get(Client(), f"{PAGE}?{query}", status=400)
    assert message in text_of(response)
    assert 'id="must-form"' in response.content.decode()
    assert "must-row" not in response.content.decode()


def test_hostile_lists_are_bounded_and_never_a_server_error(seeded_arena, story):
    client = Client(raise_request_exception=False)
    huge = "&".join(f"must={story.pk}" for _ in range(900))
    assert client.get(f"{PAGE}?{huge}").status_code == 302
    for value in ("", ",,,", " , ", "x" * 5000, "\x00", "💥", "1e400", "0"):
        assert client.get(f"{PAGE}?must={value}&need={value}").status_code in (200, 302, 400)


def query_of(text: str) -> Query:
    request = RequestFactory().get(f"{PAGE}?{text}")
    return Query.of(request, "arena-must-have", resolve(PAGE))


def test_the_page_cache_keeps_one_page_per_small_choice_and_no_more(seeded_arena):
    assert PAGE_PARAMS["arena-must-have"] == (MUST, NEED, WEIGHTS)
    assert query_of("must=3,12&need=self-hosted,open-source").kept
    assert query_of("need=managed").kept
    small = ",".join(str(i) for i in range(1, MUST_KEPT + 1))
    assert query_of(f"must={small}").kept
    larger = ",".join(str(i) for i in range(1, MUST_KEPT + 2))
    assert not query_of(f"must={larger}").kept  # rendered, not kept
    assert not query_of("must=12,3").kept  # another order: redirected, not kept
    assert not query_of("must=3&must=12").kept  # the form's spelling: redirected, not kept
    assert not query_of("must=03").kept
    assert not query_of("need=open-source,self-hosted").kept
    assert not query_of("need=nope").kept
    assert not query_of(f"must=3&weights={MINE}").kept  # weights: never kept, as on the arena
    assert query_of("must=3&utm=x").unknown  # anything else is dropped from the address


def test_a_kept_page_is_served_again_and_a_change_shows(seeded_arena, story):
    client = Client()
    url = f"{PAGE}?must={story.pk}"
    first = get(client, url)
    assert get(client, url).content == first.content
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_the_page_reads_in_a_constant_number_of_queries(seeded_arena):
    stories = list(
        Story.objects.filter(arena=seeded_arena).order_by("pk").values_list("pk", flat=True)
    )
    client = Client()
    counts = []
    for chosen in (stories[:1], stories[:MUST_MAX]):
        with CaptureQueriesContext(connection) as captured:
            get(client, f"{PAGE}?must={','.join(map(str, chosen))}&need=self-hosted")
        counts.append(len(captured))
    assert counts[0] == counts[1]
