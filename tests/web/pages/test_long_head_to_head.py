"""A head-to-head of more rounds than ``HEAD_TO_HEAD_ROWS`` writes the first category's rounds
(and an asked one's) and links each other category to its own: the page stays small however
large the arena, works without script, and htmx loads a category in place."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from arena.selectors.compare import HEAD_TO_HEAD_ROWS
from products.models import Product
from stories.models import Story

pytestmark = pytest.mark.django_db


def _pair_url(arena) -> str:
    a, b = Product.objects.filter(arena=arena).order_by("position")[:2]
    return reverse("head-to-head", args=[arena.slug, a.slug, b.slug])


def _rounds(html: str) -> set[int]:
    return {int(pk) for pk in re.findall(r'<tr id="story-(\d+)"', html)}


def _by_category(arena) -> dict[str, set[int]]:
    by: dict[str, set[int]] = {}
    for story in Story.objects.filter(arena=arena).select_related("category"):
        by.setdefault(story.category.slug, set()).add(story.pk)
    return by


def test_a_long_head_to_head_writes_one_category_and_links_the_others(client, big_arena):
    by = _by_category(big_arena)
    assert sum(map(len, by.values())) > HEAD_TO_HEAD_ROWS and len(by) > 2
    url = _pair_url(big_arena)
    html = client.get(url).text
    first = next(slug for slug, pks in by.items() if _rounds(html) & pks)
    assert _rounds(html) <= by[first]  # the first category's rounds alone
    others = [slug for slug in by if slug != first]
    shown = {}
    for slug in others:
        link = f'<a href="{url}?category={slug}#cat-{slug}"'
        assert link in html and f'hx-select="#cat-{slug}"' in html, slug
        said = re.search(r">Show the (\d+) rounds of [^<]+</a>", html[html.index(link) :])
        shown[slug] = int(said.group(1))
    asked = others[-1]
    opened = client.get(url, {"category": asked}).text
    assert _rounds(opened) - _rounds(html) <= by[asked]
    assert len(_rounds(opened) - _rounds(html)) == shown[asked]
    assert f'<a href="{url}?category={asked}#cat-{asked}"' not in opened
    # htmx asks for it in place: the answer holds the category's section with its rounds
    fragment = client.get(url, {"category": asked}, HTTP_HX_REQUEST="true").text
    section = fragment[fragment.index(f'<section class="h2h-category" id="cat-{asked}"') :]
    assert _rounds(section[: section.index("</section>")]) == _rounds(opened) - _rounds(html)
    # "expand all" writes every round: the first category's and those each link counted
    every = _rounds(client.get(url, {"open": "all"}).text)
    assert len(every) == len(_rounds(html)) + sum(shown.values()) > HEAD_TO_HEAD_ROWS


def test_a_short_head_to_head_writes_every_round(client, seeded_arena):
    html = client.get(_pair_url(seeded_arena)).text
    assert _rounds(html) and "Show the " not in html
