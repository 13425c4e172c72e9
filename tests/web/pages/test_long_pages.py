"""However large the arena, the arena page's matrix writes an open category a page of stories at a
time, the product page one category's verdicts and the compare page one category's rounds; each
says how to get the rest, with links that work without script and that htmx follows in place."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from arena.selectors.compare import HEAD_TO_HEAD_ROWS
from products.models import Product
from stories import freshness
from stories.models import Cell, Story
from stories.values import Verdict

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def _stories(html: str) -> list[int]:
    """The stories of a table's rows, in order (each row's heading links to its story)."""
    row = r'<th scope="row" class="story-col">(?:<span class="persona">[^<]*</span> )?'
    return [int(pk) for pk in re.findall(row + r'<a href="[^"]*/stories/(\d+)/"', html)]


def _by_category(arena) -> dict[str, list[int]]:
    by: dict[str, list[int]] = {}
    for story in Story.objects.filter(arena=arena).select_related("category").order_by("position"):
        by.setdefault(story.category.slug, []).append(story.pk)
    return by


def _link(html: str, text: str) -> str:
    """The address of the link whose text starts with ``text``."""
    found = re.search(r'<a [^>]*?href="([^"#]+)#[^"]*"[^>]*>\s*' + re.escape(text), html)
    assert found, text
    return found.group(1).replace("&amp;", "&")


def test_an_open_category_longer_than_a_page_is_written_a_page_at_a_time(
    client, big_arena, monkeypatch
):
    monkeypatch.setattr("web.views.pages.MATRIX_ROWS", 20)
    by = _by_category(big_arena)
    first, stories = next(iter(by.items()))
    assert len(stories) > 40  # three pages at least
    url = big_arena.get_absolute_url()
    html = client.get(url).text
    assert _stories(html) == stories[:20]
    pages = -(-len(stories) // 20)
    assert f"Stories 1–20 of {len(stories)} (page 1 of {pages})." in html
    assert "Previous stories" not in html
    seen, address = list(_stories(html)), _link(html, "Next stories")
    assert address == f"{url}?category={first}&page=2"
    for number in range(2, pages + 1):  # each page the next stories, in order, until the last
        page = client.get(address).text
        assert _link(page, "Previous stories") == (
            f"{url}?category={first}" + (f"&page={number - 1}" if number > 2 else "")
        )
        seen += _stories(page)
        if number < pages:
            address = _link(page, "Next stories")
    assert seen == stories and "Next stories" not in page
    assert _stories(client.get(url, {"category": first, "page": 99}).text) == _stories(page)
    # htmx swaps the category's body for the page asked, which holds that body alone
    category = Story.objects.get(pk=stories[0]).category_id
    body = client.get(
        url, {"category": first, "page": 2}, HTTP_HX_TARGET=f"mx-cat-{category}", **HX
    )
    assert body.text.startswith(f'<tbody id="mx-cat-{category}"')
    assert _stories(body.text) == stories[20:40]


def test_a_long_product_page_writes_one_category_and_links_the_others(
    client, big_arena, monkeypatch, settings
):
    settings.EVIDENCE_STALE_DAYS = 30  # some cells stale, some not
    monkeypatch.setattr("arena.selectors.matrix.PRODUCT_ROWS", 40)
    product = Product.objects.filter(arena=big_arena).order_by("position").first()
    url = reverse("product-detail", args=[big_arena.slug, product.slug])
    by = _by_category(big_arena)
    html = client.get(url).text
    slugs = list(by)
    assert len(slugs) > 2 and _stories(html) == by[slugs[0]][:40]
    assert f"Stories 1–40 of {len(by[slugs[0]])} (page 1 of 2)." in html
    assert _link(html, "Next stories") == f"{url}?category={slugs[0]}&page=2"
    second = client.get(url, {"category": slugs[0], "page": 2}).text
    assert _stories(second) == by[slugs[0]][40:80]
    for slug in slugs[1:]:  # each other category: its count, its own page
        at = html.index(f'href="{url}?category={slug}#cat-{slug}"')
        assert f">Show the {len(by[slug])} verdicts<" in html[at : at + 400], slug
    asked = slugs[-1]
    opened = client.get(url, {"category": asked}).text
    assert _stories(opened) == by[asked][:40]
    assert f'href="{url}?category={slugs[0]}#cat-{slugs[0]}"' in opened  # the first is a link now
    fragment = client.get(url, {"category": asked}, **HX).text
    assert '<tbody id="pc-cat-' in fragment and _stories(fragment) == by[asked][:40]
    # the stale share still counts every judged cell, not the page's
    cells = Cell.objects.filter(product=product).exclude(verdict=Verdict.NA)
    today, days = freshness.today(), freshness.stale_days()
    stale = sum(
        freshness.is_stale(c.verdict, c.evidence_as_of, today=today, days=days) for c in cells
    )
    assert 0 < stale < len(cells)
    assert f"{stale} of {len(cells)} judged cells" in html


def test_a_long_comparison_writes_one_category_and_links_the_others(client, big_arena):
    a, b, c = Product.objects.filter(arena=big_arena).order_by("position")[:3]
    url = reverse("arena-compare", args=[big_arena.slug])
    query = {"products": f"{a.slug},{b.slug},{c.slug}"}
    html = client.get(url, query).text
    by = _by_category(big_arena)
    slugs = list(by)
    rounds = set(_stories(html))
    assert rounds and rounds <= set(by[slugs[0]])
    said = re.findall(
        r'href="([^"#]+)#cmp-cat-\d+"[^>]*>Show the (\d+) rounds? of ([^<]+)</a>', html
    )
    names = {s.category.slug: s.category.name for s in Story.objects.filter(arena=big_arena)}
    assert [name for _url, _n, name in said] == [names[slug] for slug in slugs[1:]]
    assert sum(int(n) for _url, n, _name in said) + len(rounds) > HEAD_TO_HEAD_ROWS
    link, count = said[1][0].replace("&amp;", "&"), int(said[1][1])
    assert link.endswith(f"&category={slugs[2]}")
    opened = client.get(link).text
    added = set(_stories(opened)) - rounds  # the first category's and the asked one's
    assert added <= set(by[slugs[2]]) and len(added) == count
    fragment = client.get(link, **HX).text
    assert set(_stories(fragment)) == set(_stories(opened))
    assert f">Show the {count} rounds of {said[1][2]}<" not in opened


def test_a_short_arena_writes_everything_on_one_page(client, seeded_arena):
    product = Product.objects.filter(arena=seeded_arena).order_by("position").first()
    for url in (
        seeded_arena.get_absolute_url(),
        reverse("product-detail", args=[seeded_arena.slug, product.slug]),
    ):
        html = client.get(url).text
        assert "Next stories" not in html and "verdicts<span" not in html, url
