"""What backs a cell, in words, on the cell page; its source ids linked or shown unresolved; the
arena's source list page; each product's evidence share as the recompute stores it."""

from __future__ import annotations

import datetime
import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import ProductScore, Source
from arena.recompute import arena_recompute_scores
from stories.models import Cell
from stories.values import Backing, Verdict
from tests.factories import CellFactory, EvidenceFactory, ProductFactory, StoryFactory

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


@pytest.mark.parametrize(
    ("published", "rationale", "quotes", "backing"),
    [
        (False, "Works.", 2, Backing.NONE),
        (True, "Works.", 2, Backing.QUOTES),
        (True, "", 1, Backing.QUOTES),
        (True, "Works.", 0, Backing.RATIONALE),
        (True, "  ", 0, Backing.NONE),
        (True, "", 0, Backing.NONE),
    ],
)
def test_what_backs_a_cell(published, rationale, quotes, backing):
    cell = CellFactory(detail_published=published, rationale=rationale)
    for _ in range(quotes):
        EvidenceFactory(cell=cell)
    assert Cell.objects.with_backing().get(pk=cell.pk).backing == backing.value


def test_backing_words():
    assert Backing.QUOTES.describe(1) == "1 quote with sources"
    assert Backing.QUOTES.describe(3) == "3 quotes with sources"
    assert Backing.RATIONALE.describe() == "a rationale only"
    assert Backing.NONE.describe() == "no published evidence"


def test_cell_page_says_what_backs_the_verdict(client):
    quoted = CellFactory(detail_published=True)
    EvidenceFactory(cell=quoted)
    EvidenceFactory(cell=quoted)
    reasoned = CellFactory(detail_published=True, story=quoted.story)
    bare = CellFactory(detail_published=False, story=quoted.story)
    assert "Backed by 2 quotes with sources" in text_of(client.get(f"/cells/{quoted.pk}/"))
    assert "Backed by a rationale only" in text_of(client.get(f"/cells/{reasoned.pk}/"))
    text = text_of(client.get(f"/cells/{bare.pk}/"))
    assert "Backed by no published evidence" in text
    assert "No published evidence." in text


def _cited_cell():
    cell = CellFactory(
        detail_published=True, rationale="Retries are documented (docs-21, inngest-gh-1, utf-8)."
    )
    EvidenceFactory(cell=cell, source="inngest-docs-7", quote="Steps retry.")
    EvidenceFactory(cell=cell, source="claimed-docs", quote="It is durable.")
    Source.objects.create(
        arena=cell.story.arena,
        key="docs-21",
        title="Retries guide",
        url="https://example.com/retries",
        accessed=datetime.date(2026, 10, 3),
    )
    Source.objects.create(
        arena=cell.story.arena,
        key="inngest-docs-7",
        title="Steps",
        url="https://example.com/steps",
    )
    return cell


def test_cited_ids_link_to_their_source_or_show_unresolved(client):
    cell = _cited_cell()
    html = client.get(f"/cells/{cell.pk}/").content.decode()
    link = re.search(r'<a class="source-ref" href="([^"]+)" title="([^"]+)"[^>]*>docs-21</a>', html)
    assert link is not None
    assert link.groups() == ("https://example.com/retries", "Retries guide, accessed 2026-10-03")
    assert re.search(
        r'<a class="source-ref" href="https://example.com/steps"[^>]*>inngest-docs-7<', html
    )
    # an id the list does not have is never a link
    assert re.search(r'<span class="unresolved-ref" title="[^"]+">inngest-gh-1</span>', html)
    assert ">inngest-gh-1</a>" not in html
    # neither a quote's kind of source nor an ordinary word with a number is a citation
    assert "[claimed-docs]" in text_of(client.get(f"/cells/{cell.pk}/"))
    assert ">utf-8<" not in html and ">claimed-docs<" not in html


def test_cell_page_reads_the_sources_in_one_query(client, django_assert_num_queries):
    few = _cited_cell()
    many = _cited_cell()
    for n in range(5):
        EvidenceFactory(cell=many, source=f"hatchet-docs-{n}", quote="More.")
    with CaptureQueriesContext(connection) as one:
        client.get(f"/cells/{few.pk}/")
    with django_assert_num_queries(len(one.captured_queries)):
        client.get(f"/cells/{many.pk}/")
    assert sum("arena_source" in q["sql"] for q in one.captured_queries) == 1


def test_source_list_page(client):
    cell = _cited_cell()
    arena = cell.story.arena
    text = text_of(client.get(f"/arenas/{arena.slug}/sources/"))
    assert "2 sources" in text
    assert "docs-21 Retries guide 2026-10-03" in text
    assert "inngest-docs-7 Steps —" in text
    empty = StoryFactory().arena
    text = text_of(client.get(f"/arenas/{empty.slug}/sources/"))
    assert "0 sources" in text and "publishes no source list" in text
    assert client.get("/arenas/no-such-arena/sources/").status_code == 404


def test_recompute_stores_each_products_evidence_share():
    story = StoryFactory()
    a, b = ProductFactory(arena=story.arena), ProductFactory(arena=story.arena)
    stories = [story, *(StoryFactory(arena=story.arena, category=story.category) for _ in range(3))]
    # a: quotes, rationale only, unpublished, n/a (published but not judged)
    quoted = CellFactory(story=stories[0], product=a, detail_published=True)
    EvidenceFactory(cell=quoted)
    CellFactory(story=stories[1], product=a, detail_published=True)
    CellFactory(story=stories[2], product=a, detail_published=False)
    CellFactory(story=stories[3], product=a, na=True, detail_published=True)
    # b: nothing published
    for s in stories:
        CellFactory(story=s, product=b, detail_published=False)
    assert arena_recompute_scores(arena_id=story.arena_id)
    stored = {
        s.product_id: (s.published_evidence, s.judged)
        for s in ProductScore.objects.filter(arena=story.arena)
    }
    assert stored == {a.pk: (2, 3), b.pk: (0, 4)}
    assert Verdict.NA not in Backing.values  # (the share's words are the backing's, not a verdict)


def test_cell_markdown_says_what_backs_it_and_resolves_its_ids(client):
    cell = _cited_cell()
    text = client.get(f"/cells/{cell.pk}.md").content.decode()
    assert "- Backed by: 2 quotes with sources" in text
    sources = text[text.index("## Sources cited") :].split("\n\n")[1]
    assert sources.splitlines() == [
        "- docs-21: [Retries guide](https://example.com/retries), accessed 2026-10-03",
        r"- inngest-gh-1: unresolved (the arena's source list does not publish it)",
        "- inngest-docs-7: [Steps](https://example.com/steps)",
    ]
    bare = CellFactory(detail_published=False, story=cell.story)
    text = client.get(f"/cells/{bare.pk}.md").content.decode()
    assert "- Backed by: no published evidence" in text and "## Sources cited" not in text


def test_head_to_head_and_story_cards_say_what_backs_them_and_link_their_ids(client):
    cell = _cited_cell()
    other = CellFactory(story=cell.story, detail_published=True, rationale="Per docs-21 only.")
    arena, a, b = cell.story.arena, cell.product, other.product
    pages = (
        f"/arenas/{arena.slug}/vs/{a.slug}-vs-{b.slug}/?open=all",
        f"/arenas/{arena.slug}/stories/{cell.story_id}/",
    )
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        text = text_of(response)
        assert "Backed by 2 quotes with sources" in text and "Backed by a rationale only" in text
        assert html.count('href="https://example.com/retries"') == 2, url  # both cards cite it
        assert re.search(r'<span class="unresolved-ref"[^>]*>inngest-gh-1</span>', html), url
