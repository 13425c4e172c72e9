"""How search engines, link previews and browsers find the site: robots.txt, the sitemap, one
canonical link per public page, OpenGraph and Twitter meta from each page's title and description
(escaped), the favicon, SITE_URL, and the caching and query counts of the new URLs."""

from __future__ import annotations

import importlib.util
import struct
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from arena.models import Arena
from arena.selectors.arenas import documented_pairs
from config import settings as arena_settings
from core.conflicts import retire_set
from products.models import Product
from products.services import product_update
from stories.models import Cell, Story

pytestmark = pytest.mark.django_db

ARENA = "/arenas/durable-execution-engines/"
HX = {"HTTP_HX_REQUEST": "true"}
SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# The sitemap index: the site version (page cache) and the arenas. An arena's sitemap: its version,
# the arena, then one per section (products, stories, head-to-heads).
INDEX_QUERIES = 2
ARENA_SITEMAP_QUERIES = 5
HOSTILE = "Evil \"Quoted\" <b>Bold</b> & 'Co' </title><script>alert(1)</script>"


class Head(HTMLParser):
    """The ``<head>`` of a page: its title, meta tags and links (attributes unescaped)."""

    def __init__(self, html: str):
        super().__init__()
        self.title = ""
        self.meta: list[dict[str, str]] = []
        self.links: list[dict[str, str]] = []
        self._in_title = self._done = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if self._done:
            return
        if tag == "meta":
            self.meta.append({k: v or "" for k, v in attrs})
        elif tag == "link":
            self.links.append({k: v or "" for k, v in attrs})
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False
        self._done = self._done or tag == "head"

    def handle_data(self, data):
        if self._in_title:
            self.title += data

    def content(self, key: str) -> list[str]:
        """The ``content`` of each meta tag named ``key`` (``name=`` or ``property=``)."""
        return [m["content"] for m in self.meta if key in (m.get("name"), m.get("property"))]

    def canonical(self) -> list[str]:
        return [link["href"] for link in self.links if link.get("rel") == "canonical"]


def head_of(client, url: str, **headers) -> Head:
    response = client.get(url, **headers)
    assert response.status_code == 200, (url, response.status_code)
    return Head(response.content.decode())


def page_urls(arena: Arena) -> dict[str, tuple[str, str]]:
    """Each kind of public page: (what a visitor asks for, its canonical path)."""
    temporal, inngest = (Product.objects.get(arena=arena, slug=s) for s in ("temporal", "inngest"))
    story = Story.objects.filter(arena=arena).order_by("position").first()
    cell = Cell.objects.get(story=story, product=temporal)
    h2h = f"{ARENA}vs/inngest-vs-hatchet/"
    compare = f"{ARENA}compare/"
    return {
        "home": ("/", "/"),
        "methodology": ("/methodology/", "/methodology/"),
        "recent changes": ("/changes/?page=1", "/changes/"),
        "arena": (ARENA, ARENA),
        # view state (filters, sort, picked and folded columns, weights) is not another page
        "arena with view state": (
            f"{ARENA}?persona=backend-developer&verdict=disputed&q=retry&rank=verified"
            "&sort=inngest&show=inngest,dbos&fold=agenticness&weights=agenticness:3",
            ARENA,
        ),
        "head-to-head": (f"{h2h}?diff=1&open=all", h2h),
        "product": (f"{ARENA}products/{inngest.slug}/", f"{ARENA}products/{inngest.slug}/"),
        "story": (f"{ARENA}stories/{story.pk}/", f"{ARENA}stories/{story.pk}/"),
        "cell": (f"/cells/{cell.pk}/", f"/cells/{cell.pk}/"),
        # the products name the comparison: kept, in the comma form; "differences only" is not
        "compare": (
            f"{compare}?products=temporal&products=inngest&diff=1",
            f"{compare}?products=temporal,inngest",
        ),
        "compare picker": (compare, compare),
    }


# ----------------------------------------------------------------------------- canonical, meta


def test_every_public_page_has_one_canonical_link_without_its_view_state(client, seeded_arena):
    for name, (url, canonical) in page_urls(seeded_arena).items():
        head = head_of(client, url)
        assert head.canonical() == [f"http://testserver{canonical}"], name
        assert head.content("og:url") == head.canonical(), name


def test_every_public_page_has_opengraph_and_twitter_meta_from_its_title_and_description(
    client, seeded_arena
):
    for name, (url, _) in page_urls(seeded_arena).items():
        head = head_of(client, url)
        (description,) = head.content("description")
        assert len(description) > 30 and "  " not in description, name
        title = head.title.removesuffix(" · Arena")
        assert head.title.endswith(" · Arena") and title, name
        assert head.content("og:site_name") == ["Arena"], name
        assert head.content("og:type") == ["website"], name
        assert head.content("og:title") == head.content("twitter:title") == [title], name
        assert head.content("og:description") == [description], name
        assert head.content("twitter:description") == [description], name
        assert head.content("twitter:card") == ["summary"], name


def test_the_meta_say_what_the_page_is_about(client, seeded_arena):
    head = head_of(client, f"{ARENA}vs/inngest-vs-hatchet/")
    assert head.content("og:title") == ["Inngest vs Hatchet — Durable Execution Engines"]
    assert head.content("og:description")[0].startswith("Inngest vs Hatchet, story by story: ")
    arena = head_of(client, ARENA)
    assert "6 products judged on 53 user stories" in arena.content("twitter:description")[0]


def test_htmx_fragments_carry_no_head(client, seeded_arena):
    fragment = client.get(f"{ARENA}?verdict=full", **HX, HTTP_HX_TARGET="matrix")
    assert b'rel="canonical"' not in fragment.content and b"og:" not in fragment.content


def test_a_hostile_product_name_stays_inside_its_attributes(client, seeded_arena):
    product = Product.objects.get(arena=seeded_arena, slug="inngest")
    product_update(product=product, changes={"name": HOSTILE})
    Arena.objects.filter(pk=seeded_arena.pk).update(name=f"Arena {HOSTILE}")
    cell = Cell.objects.filter(product=product).order_by("story__position").first()
    for url in (
        f"{ARENA}products/inngest/",
        f"{ARENA}vs/inngest-vs-hatchet/",
        f"{ARENA}compare/?products=inngest,temporal",
        f"/cells/{cell.pk}/",
        ARENA,
    ):
        html = client.get(url).content.decode()
        head_html = html[: html.index("</head>")]
        assert "<b>" not in head_html and "<script>alert" not in head_html, url
        head = Head(html)
        assert HOSTILE in head.title, url
        for key in ("og:title", "twitter:title", "og:description", "twitter:description"):
            (value,) = head.content(key)
            assert HOSTILE in value, (url, key)
        # nothing broke out of an attribute: the head holds exactly the tags base.html writes
        assert len(head.canonical()) == 1 and len(head.content("og:url")) == 1, url


def test_pages_that_are_not_public_ask_not_to_be_indexed(client, seeded_arena):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    head = Head(response.content.decode())
    assert head.content("robots") == ["noindex"]
    assert head.canonical() == [] and head.content("og:title") == []


def test_a_flag_form_is_readable_and_folds_into_its_cell_page(client, seeded_arena):
    # one form per cell: indexable (no noindex), its canonical the cell's proof page, so a search
    # engine lists the cell, not its form
    cell = Cell.objects.filter(story__arena=seeded_arena).first()
    head = head_of(client, f"/cells/{cell.pk}/flag/")
    assert head.content("robots") == []
    assert head.canonical() == [f"http://testserver/cells/{cell.pk}/"]
    assert head.content("og:url") == head.canonical()
    assert head_of(client, f"/cells/{cell.pk}/").canonical() == head.canonical()


def test_site_url_names_the_public_origin(client, seeded_arena, settings):
    settings.SITE_URL = "https://arena.example"
    head = head_of(client, f"{ARENA}?rank=verified")
    assert head.canonical() == [f"https://arena.example{ARENA}"]
    assert head.content("og:url") == head.canonical()
    robots = client.get("/robots.txt").content.decode()
    assert "Sitemap: https://arena.example/sitemap.xml" in robots
    locs = sitemap_locs(client)
    assert locs and all(loc.startswith("https://arena.example/") for loc in locs)


def settings_with(monkeypatch, **env: str):
    """A fresh copy of ``config.settings`` read with these environment variables (the live settings
    untouched)."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    spec = importlib.util.spec_from_file_location("settings_copy", arena_settings.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_site_url_is_an_origin_or_the_site_does_not_start(monkeypatch):
    for value in ("https://arena.example", "http://127.0.0.1:8000/"):
        assert settings_with(monkeypatch, SITE_URL=value).SITE_URL == value.rstrip("/")
    assert settings_with(monkeypatch, SITE_URL="").SITE_URL == ""
    for value in ("arena.example", "https://arena.example/site", "https://arena.example?x"):
        with pytest.raises(ImproperlyConfigured, match="SITE_URL is an origin"):
            settings_with(monkeypatch, SITE_URL=value)


# ----------------------------------------------------------------------------- robots.txt


def test_robots_txt_lets_crawlers_read_the_public_pages_and_names_the_sitemap(client, seeded_arena):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    text = response.content.decode()
    assert "Sitemap: http://testserver/sitemap.xml" in text.splitlines()
    assert "/flag/" not in text  # the flag forms may be read (their canonical is their cell)
    robots = RobotFileParser()
    robots.parse(text.splitlines())
    for url, allowed in [
        ("/", True),
        (ARENA, True),
        (f"{ARENA}vs/inngest-vs-hatchet/", True),
        ("/cells/1/", True),
        ("/cells/1/flag/", True),
        ("/changes/", True),
        ("/sitemap.xml", True),
        ("/api/arenas/", True),
        ("/admin/", False),
        ("/admin/flags/reviewitem/", False),
        ("/flags/status/secret-token/", False),
        ("/api/flags/", False),
    ]:
        assert robots.can_fetch("AnyBot", f"http://testserver{url}") is allowed, url


# ----------------------------------------------------------------------------- sitemap.xml


def sitemap_of(client, url: str, kind: str) -> ET.Element:
    response = client.get(urlsplit(url).path)
    assert response.status_code == 200, url
    assert response["Content-Type"] == "application/xml"
    root = ET.fromstring(response.content)
    assert root.tag == f"{SITEMAP_NS}{kind}"
    return root


def sitemap_index(client) -> list[str]:
    """The sitemaps ``/sitemap.xml`` names."""
    root = sitemap_of(client, "/sitemap.xml", "sitemapindex")
    return [loc.text or "" for loc in root.iter(f"{SITEMAP_NS}loc")]


def sitemap_urls(client) -> list[tuple[str, str | None]]:
    """Every page the sitemaps name, with its lastmod, read through the index as a crawler does."""
    urls = []
    for sitemap in sitemap_index(client):
        for url in sitemap_of(client, sitemap, "urlset").iter(f"{SITEMAP_NS}url"):
            urls.append(
                (url.findtext(f"{SITEMAP_NS}loc") or "", url.findtext(f"{SITEMAP_NS}lastmod"))
            )
    return urls


def sitemap_locs(client) -> list[str]:
    return [loc for loc, _ in sitemap_urls(client)]


def test_the_sitemap_lists_every_page_kind_and_each_answers(client, seeded_arena):
    assert sitemap_index(client) == [
        "http://testserver/sitemap-pages.xml",
        f"http://testserver{ARENA}sitemap.xml",
    ]
    locs = sitemap_locs(client)
    assert len(locs) == len(set(locs))
    paths = [urlsplit(loc).path for loc in locs]
    assert all(loc.startswith("http://testserver/") for loc in locs)
    assert paths[:5] == ["/", "/methodology/", "/changes/", ARENA, f"{ARENA}disputes/"]
    products = Product.objects.filter(arena=seeded_arena).count()
    stories = Story.objects.filter(arena=seeded_arena).count()
    assert sum("/products/" in p for p in paths) == products == 6
    assert sum("/stories/" in p for p in paths) == stories == 53
    pairs = [f"{ARENA}vs/{a.slug}-vs-{b.slug}/" for _, a, b in documented_pairs(arena=seeded_arena)]
    assert pairs and [p for p in paths if "/vs/" in p] == pairs
    for path in paths:
        assert client.get(path).status_code == 200, path


def test_sitemap_entries_carry_the_day_the_arena_last_changed(client, seeded_arena):
    day = seeded_arena.scores_computed_at.date().isoformat()
    site_wide = {f"http://testserver{p}" for p in ("/", "/methodology/", "/changes/")}
    for loc, lastmod in sitemap_urls(client):
        assert lastmod == (None if loc in site_wide else day), loc
    index = sitemap_of(client, "/sitemap.xml", "sitemapindex")
    days = [s.findtext(f"{SITEMAP_NS}lastmod") for s in index.iter(f"{SITEMAP_NS}sitemap")]
    assert days == [None, day]  # the site's own pages have none


def test_retired_products_and_stories_leave_the_sitemap_at_once(client, seeded_arena):
    before = sitemap_locs(client)
    story = Story.objects.filter(arena=seeded_arena).order_by("position").first()
    hatchet = Product.objects.get(arena=seeded_arena, slug="hatchet")
    retire_set(story, retired=True)
    retire_set(hatchet, retired=True)
    after = sitemap_locs(client)  # the arena's version moved: not the cached copy
    gone = set(before) - set(after)
    assert f"http://testserver{ARENA}stories/{story.pk}/" in gone
    assert f"http://testserver{ARENA}products/hatchet/" in gone
    assert not any("hatchet" in loc for loc in after)
    assert set(after) < set(before)


def test_a_change_in_one_arena_leaves_the_other_arenas_sitemap_as_kept(
    client, seeded_arena, big_arena
):
    other = f"/arenas/{big_arena.slug}/sitemap.xml"
    kept = client.get(other)["ETag"]
    retire_set(Product.objects.get(arena=seeded_arena, slug="hatchet"), retired=True)
    assert client.get(other, HTTP_IF_NONE_MATCH=kept).status_code == 304
    root = sitemap_of(client, f"{ARENA}sitemap.xml", "urlset")
    own = [loc.text or "" for loc in root.iter(f"{SITEMAP_NS}loc")]
    assert own and not any("hatchet" in loc for loc in own)


def test_an_arena_that_is_not_there_has_no_sitemap(client, seeded_arena):
    assert client.get("/arenas/no-such-arena/sitemap.xml").status_code == 404


def test_documented_pairs_of_every_arena_are_each_arenas_own(client, seeded_arena, big_arena):
    expected = [
        (arena.slug, a.slug, b.slug)
        for arena in Arena.objects.order_by("name")
        for _, a, b in documented_pairs(arena=arena)
    ]
    paths = [reverse("head-to-head", args=row) for row in expected]
    assert [urlsplit(loc).path for loc in sitemap_locs(client) if "/vs/" in loc] == paths
    assert {row[0] for row in expected} == {"big", "durable-execution-engines"}


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_an_arena_sitemap_reads_as_many_queries_whatever_its_size(client, request, size):
    arena = request.getfixturevalue(size)
    with CaptureQueriesContext(connection) as queries:
        root = sitemap_of(client, f"/arenas/{arena.slug}/sitemap.xml", "urlset")
    assert len(queries) == ARENA_SITEMAP_QUERIES
    locs = [loc.text or "" for loc in root.iter(f"{SITEMAP_NS}loc")]
    stories = Story.objects.filter(arena=arena).count()
    assert sum("/stories/" in loc for loc in locs) == stories in (53, 300)


def test_the_sitemap_index_reads_one_query_for_every_arena(
    client, seeded_arena, big_arena, django_assert_max_num_queries
):
    with CaptureQueriesContext(connection) as queries:
        sitemaps = sitemap_index(client)
    assert len(queries) == INDEX_QUERIES
    assert [urlsplit(s).path for s in sitemaps] == [
        "/sitemap-pages.xml",
        f"/arenas/{seeded_arena.slug}/sitemap.xml",  # by name: "Durable …" before "Synthetic …"
        f"/arenas/{big_arena.slug}/sitemap.xml",
    ]
    locs = sitemap_locs(client)
    assert sum("/stories/" in loc for loc in locs) == 353
    assert sum("/products/" in loc for loc in locs) == 36
    with django_assert_max_num_queries(1):  # robots.txt reads only the page cache's version
        assert client.get("/robots.txt").status_code == 200


# ----------------------------------------------------------------------------- favicon


def test_favicon_ico_is_a_32px_png_icon(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    ico = response.content
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind, count) == (0, 1, 1)
    width, height, _, _, planes, bits, size, offset = struct.unpack("<BBBBHHII", ico[6:22])
    assert (width, height, planes, bits, offset) == (32, 32, 1, 32, 22)
    png = ico[offset : offset + size]
    assert len(ico) == offset + size and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert struct.unpack(">II", png[16:24]) == (32, 32)  # IHDR's width and height
    # the committed file, served as it is (nothing drawn at run time), cached by browsers
    assert ico == Path(django_settings.BASE_DIR, "static", "favicon.ico").read_bytes()
    assert "max-age" in response["Cache-Control"]


def test_the_apple_touch_icon_is_a_committed_180px_png():
    png = Path(django_settings.BASE_DIR, "static", "apple-touch-icon.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert struct.unpack(">II", png[16:24]) == (180, 180)


def test_the_svg_favicon_is_linked_and_has_dark_colours(client, seeded_arena):
    head = head_of(client, "/")
    icons = {link.get("type", ""): link["href"] for link in head.links if link["rel"] == "icon"}
    assert icons[""] == "/favicon.ico" and icons["image/svg+xml"].endswith("/favicon.svg")
    svg = Path(django_settings.BASE_DIR, "static", "favicon.svg").read_text()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "@media (prefers-color-scheme: dark)" in svg


# ----------------------------------------------------------------------------- caching


@pytest.mark.parametrize("url", ["/robots.txt", "/sitemap.xml", "/favicon.ico"])
def test_discovery_urls_are_cached_revalidated_and_answer_head(
    client, seeded_arena, url, django_assert_max_num_queries
):
    got = client.get(url)
    assert got.status_code == 200
    assert got["ETag"].startswith('W/"')
    assert "public" in got["Cache-Control"] and "s-maxage=" in got["Cache-Control"]
    assert not got.cookies and "cookie" not in got.get("Vary", "").lower()
    with django_assert_max_num_queries(1):
        again = client.get(url, HTTP_IF_NONE_MATCH=got["ETag"])
    assert again.status_code == 304 and again.content == b""
    head = client.head(url)
    assert head.status_code == 200 and head.content == b""
    assert int(head["Content-Length"]) == len(got.content)
    assert head["ETag"] == got["ETag"]
