"""``/sitemap.xml`` and ``/robots.txt`` as real clients read them: the sitemap index and each
sitemap it names against the sitemaps.org 0.9 schemas (``siteindex.xsd`` and ``sitemap-0.9.xsd``,
as published), robots.txt through Python's own ``urllib.robotparser``, which answers what a polite
crawler may fetch."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser
from xml.etree import ElementTree

import pytest
import xmlschema

from tests.standards.conftest import PAGES

pytestmark = pytest.mark.django_db

XSD = Path(__file__).with_name("sitemap-0.9.xsd")
INDEX_XSD = Path(__file__).with_name("siteindex.xsd")
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def valid(client, url: str, xsd: Path) -> ElementTree.Element:
    response = client.get(urlsplit(url).path)
    assert response.status_code == 200, url
    assert response["Content-Type"].startswith("application/xml")
    errors = [str(e) for e in xmlschema.XMLSchema(str(xsd)).iter_errors(response.content.decode())]
    assert not errors, (url, errors)
    return ElementTree.fromstring(response.content)


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_the_sitemaps_validate_against_the_sitemaps_schemas(client, request, size):
    arena = request.getfixturevalue(size)
    sitemaps = [
        e.text or ""
        for e in valid(client, "/sitemap.xml", INDEX_XSD).findall("s:sitemap/s:loc", NS)
    ]
    assert sitemaps == [
        "http://testserver/sitemap-pages.xml",
        f"http://testserver/arenas/{arena.slug}/sitemap.xml",
    ]
    locs = [e.text for url in sitemaps for e in valid(client, url, XSD).findall("s:url/s:loc", NS)]
    assert f"http://testserver/arenas/{arena.slug}/" in locs
    assert all(loc and loc.startswith("http://testserver/") for loc in locs)


def test_a_sitemap_that_breaks_the_schema_is_caught():
    # the check itself: a url without its loc, and a priority out of range, fail
    bad = (
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><lastmod>2026-01-01</lastmod></url>"
        "<url><loc>http://testserver/</loc><priority>2</priority></url></urlset>"
    )
    assert len(list(xmlschema.XMLSchema(str(XSD)).iter_errors(bad))) == 2
    # an index naming a page where a sitemap belongs, and a sitemap without its loc
    bad = (
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>http://testserver/</loc></url>"
        "<sitemap><lastmod>2026-01-01</lastmod></sitemap></sitemapindex>"
    )
    assert len(list(xmlschema.XMLSchema(str(INDEX_XSD)).iter_errors(bad))) >= 1


def test_robots_txt_says_what_we_mean(client, site):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    robots = RobotFileParser()
    robots.parse(response.content.decode().splitlines())
    public = [
        address(site) for name, address in PAGES.items() if name not in {"flag status", "404"}
    ]
    for path in [*public, "/sitemap.xml", "/llms.txt", "/api/arenas/"]:
        assert robots.can_fetch("*", f"http://testserver{path}"), path
        assert robots.can_fetch("SomeBot/1.0", f"http://testserver{path}"), path
    for path in [
        "/admin/",
        "/admin/flags/flag/",
        f"/flags/status/{site['flag'].token}/",
        "/api/flags/",
        f"/api/flags/{site['flag'].pk}/",
    ]:
        assert not robots.can_fetch("*", f"http://testserver{path}"), path
    assert robots.site_maps() == ["http://testserver/sitemap.xml"]
    # The flag form (/cells/<id>/flag/, one per cell) may be read, even by a crawler that knows
    # wildcards (no rule names it); its canonical link folds it into its cell's page instead.
    assert "/flag/" not in response.content.decode()
    cell = site["cell"].pk
    form = client.get(f"/cells/{cell}/flag/").content.decode()
    assert 'name="robots"' not in form
    assert f'<link rel="canonical" href="http://testserver/cells/{cell}/">' in form
