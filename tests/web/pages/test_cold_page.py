"""The arena page rendered with every cache off reads only what it shows: the stored close calls
stay in the database unless a page shows what would settle them (the head-to-head, the
verification queue), and the head-to-head reads its own pair's alone."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import CloseCall

pytestmark = pytest.mark.django_db


def _reads(queries: CaptureQueriesContext, table: str) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if table in q["sql"]]


def test_the_arena_page_leaves_the_stored_close_calls_unread(client, seeded_arena, settings):
    settings.PAGE_CACHE = False
    with CaptureQueriesContext(connection) as queries:
        response = client.get(seeded_arena.get_absolute_url())
    assert response.status_code == 200 and b'id="leaderboard"' in response.content
    assert not _reads(queries, "arena_closecall") and not _reads(queries, "arena_settlecell")


def test_the_head_to_head_reads_its_own_close_call_alone(client, seeded_arena, settings):
    settings.PAGE_CACHE = False
    call = CloseCall.objects.filter(arena=seeded_arena, settle_count__gt=0).first()
    a, b = call.leader, call.trailer
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"{seeded_arena.get_absolute_url()}vs/{a.slug}-vs-{b.slug}/")
    assert response.status_code == 200 and b'id="settle-h"' in response.content
    # the pair's row, then its listed cells among the unverified ones
    [pair] = _reads(queries, "arena_closecall")
    assert "LIMIT 1" in pair and "arena_settlecell" not in pair
    [cells] = _reads(queries, "arena_settlecell")
    assert f'."call_id" = {call.pk}' in cells
