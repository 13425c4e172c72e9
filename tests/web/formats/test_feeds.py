"""Atom feeds of verdict changes per arena and per product: valid Atom, only their own changes (made
the way moderators make them), the same entries as the site-wide feed, 404s, cached by the arena's
content version, a constant number of queries; linked from the arena and product pages."""

from __future__ import annotations

import re
from html import unescape
from xml.etree import ElementTree

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core.conflicts import retire_set
from flags.forms import DecisionForm
from flags.services import review_item_uphold
from products.models import Product
from stories.models import Cell
from stories.values import Verdict
from tests.factories import CellChangeFactory, CellFactory, FlagFactory

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
SEED = "/arenas/durable-execution-engines/"


def atom(response) -> ElementTree.Element:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ElementTree.fromstring(response.content)
    assert root.tag == f"{ATOM}feed"
    return root


def entries(root: ElementTree.Element) -> list[dict[str, str]]:
    return [
        {
            "id": entry.findtext(f"{ATOM}id"),
            "title": entry.findtext(f"{ATOM}title"),
            "summary": entry.findtext(f"{ATOM}summary"),
            "link": entry.find(f"{ATOM}link").get("href"),
            "updated": entry.findtext(f"{ATOM}updated"),
        }
        for entry in root.findall(f"{ATOM}entry")
    ]


def feed_url(product: Product | None = None, arena_slug: str = "durable-execution-engines") -> str:
    base = f"/arenas/{arena_slug}/"
    return f"{base}products/{product.slug}/changes/feed/" if product else f"{base}changes/feed/"


def uphold(cell: Cell, moderator, note: str = "Checked the docs.", **correction):
    """A flag on ``cell`` upheld by a moderator, as in the admin (the service it calls)."""
    flag = FlagFactory(item__cell=cell)
    return review_item_uphold(
        item=flag.item, moderator=moderator, form=DecisionForm({"note": note, **correction})
    )


@pytest.fixture
def seed_products(seeded_arena) -> list[Product]:
    return list(Product.objects.filter(arena=seeded_arena).order_by("position"))


@pytest.fixture
def corrected(seeded_arena, seed_products, moderator) -> Cell:
    """The seed's first product's first full cell, corrected to none 0/10 by an upheld flag."""
    cell = (
        Cell.objects.filter(product=seed_products[0], verdict=Verdict.FULL)
        .select_related("story", "product")
        .order_by("story__position")
        .first()
    )
    uphold(
        cell,
        moderator,
        note="The docs no longer describe it.",
        verdict=Verdict.NONE,
        proof=None,
        quality=0,
    )
    return cell


def test_an_arenas_feed_is_atom_named_after_it_and_links_its_page(client, seeded_arena):
    root = atom(client.get(feed_url()))
    assert root.findtext(f"{ATOM}title") == "Durable Execution Engines: verdict changes"
    assert "Durable Execution Engines arena" in root.findtext(f"{ATOM}subtitle")
    alternate = root.find(f"{ATOM}link[@rel='alternate']").get("href")
    assert alternate == f"http://testserver{SEED}"
    assert root.find(f"{ATOM}link[@rel='self']").get("href") == f"http://testserver{feed_url()}"
    # an author for the feed (validators want one for the feed or every entry), the data licence
    assert root.findtext(f"{ATOM}author/{ATOM}name") == "Arena"
    assert root.findtext(f"{ATOM}author/{ATOM}uri") == "http://testserver/"
    assert "CC BY 4.0" in root.findtext(f"{ATOM}rights")
    assert entries(root) == []  # the seed's verdicts never changed


def test_a_products_feed_is_named_after_it_and_links_its_page(client, seed_products):
    temporal = seed_products[0]
    root = atom(client.get(feed_url(temporal)))
    assert root.findtext(f"{ATOM}title") == (
        f"{temporal.name} in Durable Execution Engines: verdict changes"
    )
    alternate = root.find(f"{ATOM}link[@rel='alternate']").get("href")
    assert alternate == f"http://testserver{SEED}products/{temporal.slug}/"


def test_an_upheld_flag_shows_in_its_arenas_and_products_feeds(client, corrected, seed_products):
    arena_entries = entries(atom(client.get(feed_url())))
    product_entries = entries(atom(client.get(feed_url(seed_products[0]))))
    assert len(arena_entries) == len(product_entries) == 1
    entry = arena_entries[0]
    assert entry == product_entries[0]
    name = seed_products[0].name
    assert entry["title"].startswith(f"{name}: full → none on “")
    assert entry["summary"].startswith("Durable Execution Engines. Upheld flag: full ")
    assert "none 0/10 (against the product's claim). " in unescape(entry["summary"])
    assert "→ none 0/10" in entry["summary"]
    assert "The docs no longer describe it." in entry["summary"]
    assert re.fullmatch(rf"http://testserver/cells/{corrected.pk}/#change-\d+", entry["link"])
    # another product's feed does not carry it
    assert entries(atom(client.get(feed_url(seed_products[1])))) == []


def test_entries_read_as_in_the_site_wide_feed_with_the_same_stable_ids(client, corrected):
    site = entries(atom(client.get("/changes/feed/")))
    arena = entries(atom(client.get(feed_url())))
    assert site == arena
    # the id does not move between requests (nor with the page cache emptied)
    caches["pages"].clear()
    assert entries(atom(Client().get(feed_url())))[0]["id"] == arena[0]["id"]


def test_an_arenas_feed_carries_only_its_own_changes_newest_first(
    client, seeded_arena, seed_products, moderator
):
    other = CellFactory()  # a cell of another arena
    uphold(other, moderator, note="elsewhere", verdict=Verdict.NONE, proof=None, quality=0)
    a, b = (
        Cell.objects.filter(product=seed_products[i], verdict=Verdict.FULL).order_by("pk").first()
        for i in (1, 2)
    )
    uphold(a, moderator, note="first", verdict=Verdict.NONE, proof=None, quality=0)
    uphold(b, moderator, note="second", verdict=Verdict.NONE, proof=None, quality=0)
    summaries = [e["summary"] for e in entries(atom(client.get(feed_url())))]
    assert [s.rsplit(". ", 1)[-1] for s in summaries] == ["second", "first"]
    elsewhere = entries(atom(client.get(feed_url(arena_slug=other.story.arena.slug))))
    assert [e["summary"].rsplit(". ", 1)[-1] for e in elsewhere] == ["elsewhere"]
    # the site-wide feed still carries every arena's
    assert len(entries(atom(client.get("/changes/feed/")))) == 3


def test_a_feed_carries_the_newest_fifty(client, seed_products):
    cell = Cell.objects.filter(product=seed_products[0]).first()
    CellChangeFactory.create_batch(55, cell=cell)
    assert len(entries(atom(client.get(feed_url(seed_products[0]))))) == 50


def test_names_with_markup_are_escaped_and_the_feed_still_parses(client, moderator):
    cell = CellFactory(
        story__arena__name='Queues <&> "brokers"',
        product__name="<b>Rabbit</b> & 'Co'",
        story__text="Retries <script>alert(1)</script> & backs off",
    )
    uphold(cell, moderator, note="A <note> & more", verdict=Verdict.NONE, proof=None, quality=0)
    root = atom(client.get(feed_url(cell.product, arena_slug=cell.story.arena.slug)))
    assert root.findtext(f"{ATOM}title") == (
        """<b>Rabbit</b> & 'Co' in Queues <&> "brokers": verdict changes"""
    )
    (entry,) = entries(root)
    assert "<script>alert(1)</script> & backs off" in entry["title"]  # a title is text
    # a summary is HTML (type="html"): the note reads as written, not as markup
    assert root.find(f"{ATOM}entry/{ATOM}summary").get("type") == "html"
    assert entry["summary"].endswith("A &lt;note&gt; &amp; more")
    assert unescape(entry["summary"]).startswith('Queues <&> "brokers". Upheld flag: ')


@pytest.mark.parametrize(
    "url",
    [
        "/arenas/no-such-arena/changes/feed/",
        "/arenas/no-such-arena/products/temporal/changes/feed/",
        f"{SEED}products/no-such-product/changes/feed/",
    ],
)
def test_unknown_arenas_and_products_have_no_feed(client, seeded_arena, url):
    assert client.get(url).status_code == 404


def test_a_retired_product_has_no_feed(client, seed_products):
    retire_set(seed_products[0], retired=True)
    assert client.get(feed_url(seed_products[0])).status_code == 404


def test_feeds_are_public_validated_and_answer_head(client, seed_products):
    for url in (feed_url(), feed_url(seed_products[0])):
        response = client.get(url)
        assert response.status_code == 200
        assert "public" in response["Cache-Control"] and "s-maxage=" in response["Cache-Control"]
        assert response["ETag"].startswith('W/"')
        assert not response.cookies and "Set-Cookie" not in response
        again = client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])
        assert again.status_code == 304 and again.content == b""
        head = client.head(url)
        assert head.status_code == 200 and head.content == b""
        assert head["ETag"] == response["ETag"]
        assert int(head["Content-Length"]) == len(response.content)


def test_a_verdict_change_gives_the_feeds_a_new_etag(client, seed_products, moderator):
    before = {url: client.get(url)["ETag"] for url in (feed_url(), feed_url(seed_products[0]))}
    cell = Cell.objects.filter(product=seed_products[0], verdict=Verdict.FULL).first()
    uphold(cell, moderator, verdict=Verdict.NONE, proof=None, quality=0)
    for url, etag in before.items():
        response = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 200, url
        assert len(entries(atom(response))) == 1


def _changes_for(arena) -> None:
    """Forty changes spread over the arena's products and stories (feeds read them in one query)."""
    cells = list(
        Cell.objects.filter(story__arena=arena).order_by("story__position", "product")[:40]
    )
    for cell in cells:
        CellChangeFactory(cell=cell)


def test_feeds_read_as_many_queries_for_6x53_as_for_30x300(seeded_arena, big_arena):
    counts = {}
    for arena in (seeded_arena, big_arena):
        _changes_for(arena)
        product = Product.objects.filter(arena=arena).order_by("position").first()
        for kind, url in (
            ("arena", feed_url(arena_slug=arena.slug)),
            ("product", feed_url(product, arena_slug=arena.slug)),
        ):
            with CaptureQueriesContext(connection) as queries:
                root = atom(Client().get(url))
            assert entries(root), url
            counts[arena.slug, kind] = len(queries)
    # the content version, the arena, (its products,) the changes with their cells
    assert counts["durable-execution-engines", "arena"] == counts["big", "arena"] == 3
    assert counts["durable-execution-engines", "product"] == counts["big", "product"] == 4


# ---------------------------------------------------------------- linked from the pages


def alternates(html: str) -> list[tuple[str, str]]:
    return [
        (unescape(title), href)
        for title, href in re.findall(
            r'<link rel="alternate" type="application/atom\+xml" title="([^"]+)"\s+href="([^"]+)">',
            html,
        )
    ]


def test_the_arena_page_announces_its_feed(client, seeded_arena):
    html = client.get(SEED).content.decode()
    assert alternates(html) == [("Durable Execution Engines: verdict changes (Atom)", feed_url())]


def test_the_product_page_announces_and_links_its_feed(client, seed_products):
    temporal = seed_products[0]
    html = client.get(f"{SEED}products/{temporal.slug}/").content.decode()
    url = feed_url(temporal)
    assert alternates(html) == [
        (f"{temporal.name} in Durable Execution Engines: verdict changes (Atom)", url)
    ]
    link = re.search(rf'<a href="{re.escape(url)}" class="feed-link">(.*?)</a>', html, re.S)
    assert link and re.sub(r"<[^>]+>", "", link[1]).startswith("Changes feed")
    # and the feed it links answers
    assert atom(client.get(url)) is not None
