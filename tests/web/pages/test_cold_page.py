"""The arena page rendered with every cache off reads only what it shows: the stored close calls
(a large JSON list, decoded with its row) stay in the database unless a page shows what would
settle them (the head-to-head, the verification queue)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.selectors.arenas import arena_get, arena_product_list

pytestmark = pytest.mark.django_db


def _read_close_calls(queries: CaptureQueriesContext) -> bool:
    return any("close_calls" in q["sql"] for q in queries.captured_queries)


def test_the_arena_page_leaves_the_stored_close_calls_unread(client, seeded_arena, settings):
    settings.PAGE_CACHE = False
    with CaptureQueriesContext(connection) as queries:
        response = client.get(seeded_arena.get_absolute_url())
    assert response.status_code == 200 and b'id="leaderboard"' in response.content
    assert not _read_close_calls(queries)


def test_arena_get_reads_the_close_calls_only_when_asked(seeded_arena):
    plain = arena_get(slug=seeded_arena.slug)
    assert plain is not None and "close_calls" not in plain.__dict__
    full = arena_get(slug=seeded_arena.slug, close_calls=True)
    assert full is not None and full.close_calls  # the seed has pairs too close to call
    # both with the counts the pages read
    assert plain.story_count == full.story_count == 53


def test_the_head_to_head_reads_the_close_calls_with_the_arena(client, seeded_arena, settings):
    settings.PAGE_CACHE = False
    call = arena_get(slug=seeded_arena.slug, close_calls=True).close_calls[0]
    products = {p.pk: p for p in arena_product_list(arena=seeded_arena)}
    a, b = products[call["a"]], products[call["b"]]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"{seeded_arena.get_absolute_url()}vs/{a.slug}-vs-{b.slug}/")
    assert response.status_code == 200
    arena_reads = [q for q in queries.captured_queries if "close_calls" in q["sql"]]
    assert len(arena_reads) == 1  # with the arena's own row, not a query of its own
