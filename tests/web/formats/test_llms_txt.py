"""``/llms.txt`` as an agent reads it (llmstxt.org): what the site is, each arena with its size and
leader, and the API, every link an absolute address of a markdown page that answers 200; each
arena's page links its head-to-heads and its data, so the file stays small however many arenas
and pairs there are — at 6 × 53 and 30 × 300, cached like the pages, in a constant number of
queries."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.selectors.arenas import documented_pairs
from tests.web.formats.test_markdown_views import MARKDOWN, links_of

pytestmark = [pytest.mark.django_db, pytest.mark.long]

TEXT = "text/plain; charset=utf-8"


def llms(client) -> str:
    response = client.get("/llms.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == TEXT
    return response.content.decode()


def follow_every_link(client, text: str) -> list[str]:
    """Fetch each link of ``text`` before its ``## Optional`` section: all 200 and markdown.
    Returns the addresses."""
    hrefs = [href for _, href in links_of(text.split("## Optional")[0])]
    assert hrefs
    for href in hrefs:
        assert href.startswith("http://testserver/"), href  # absolute, on this site
        response = client.get(href.removeprefix("http://testserver"))
        assert response.status_code == 200, href
        assert response["Content-Type"] == MARKDOWN, href
        assert response.content.decode().startswith("# "), href
    return hrefs


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_llms_txt_links_only_markdown_pages_that_answer(client, request, size):
    arena = request.getfixturevalue(size)
    text = llms(client)
    hrefs = follow_every_link(client, text)
    # the arena and the API summary; the arena's page names its pairs and data
    assert hrefs == [f"http://testserver/arenas/{arena.slug}.md", "http://testserver/api.md"]
    page = client.get(f"/arenas/{arena.slug}.md").content.decode()
    pairs = [(a, b) for _, a, b in documented_pairs(arena=arena)]
    assert pairs and all(
        f"/arenas/{arena.slug}/vs/{a.slug}-vs-{b.slug}.md)" in page for a, b in pairs
    )
    for data in ("export.csv", "export.json"):
        assert f"(http://testserver/arenas/{arena.slug}/{data})" in page
        assert client.get(f"/arenas/{arena.slug}/{data}").status_code == 200


def test_llms_txt_follows_the_llmstxt_format(client, seeded_arena, big_arena):
    text = llms(client)
    lines = text.splitlines()
    assert lines[0] == "# Arena"
    assert lines[1] == "" and lines[2].startswith("> Evidence-backed comparisons")
    headings = [line for line in lines if line.startswith("#")]
    assert headings == ["# Arena", "## Arenas", "## API", "## Optional"]
    # what the site is: verdicts, proof levels, scores, flags, and the licence
    intro = text[: text.index("## Arenas")]
    for words in ("full, partial, disputed, none or n/a", "proof level", "PA Score", "flag"):
        assert words in intro
    assert "CC BY 4.0 (`https://creativecommons.org/licenses/by/4.0/`)" in intro
    # each arena as the API lists it: products × stories, leader
    section = text[text.index("## Arenas") : text.index("## API")]
    for arena in client.get("/api/arenas/").json()["results"]:
        line = next(line for line in section.splitlines() if f"/arenas/{arena['slug']}.md)" in line)
        assert re.search(
            rf"\): {arena['product_count']} products × {arena['story_count']} stories", line
        )
    # the first of the published ranking, and whether it leads by the one rule (Temporal's range
    # reaches the second's in the seeded arena: no leader is claimed)
    board = client.get("/api/arenas/durable-execution-engines/").json()["leaderboard"]
    second = board[1]["product"]["name"]
    assert board[0]["pa_range"][0] <= board[1]["pa_range"][1]
    assert f"first Temporal (too close to call with {second})" in section
    assert "leader" not in section
    # the raw schema linked under Optional (not markdown); no arena's pages or files listed there
    optional = dict((href, label) for label, href in links_of(text.split("## Optional")[1]))
    assert optional["http://testserver/api/schema/"] == "OpenAPI schema"
    assert not any("/arenas/" in href for href in optional)
    follow_every_link(client, text)


def test_llms_txt_is_cached_validated_and_cookie_free(client, seeded_arena):
    response = client.get("/llms.txt")
    assert "public" in response["Cache-Control"] and response["ETag"].startswith('W/"')
    assert not response.cookies and "cookie" not in response.get("Vary", "").lower()
    assert client.get("/llms.txt", HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    head = client.head("/llms.txt")
    assert head.status_code == 200 and head.content == b""


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_llms_txt_queries_do_not_grow_with_the_arena(client, request, size):
    request.getfixturevalue(size)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/llms.txt").status_code == 200
    # the site version, the arenas, their counts (kept per arena version)
    assert len(queries) == 3


def test_llms_txt_queries_do_not_grow_with_the_number_of_arenas(client, seeded_arena, big_arena):
    with CaptureQueriesContext(connection) as queries:
        text = client.get("/llms.txt").content.decode()
    assert len(queries) == 3
    assert "/arenas/big.md" in text and "/arenas/durable-execution-engines.md" in text
    assert "/vs/" not in text and "/export." not in text  # (on each arena's own page)
