"""The leaderboard says how much of each product's evidence is stale, beside its verified share,
with the count and share the product page gives (``arena_stale_counts``); nothing when none is."""

from __future__ import annotations

import math
import re
from datetime import timedelta
from html import unescape
from unittest.mock import patch

import pytest

from arena.models import Arena
from arena.selectors.leaderboard import arena_stale_counts
from products.models import Product
from stories import freshness
from stories.models import Cell
from stories.services import cell_correct
from stories.values import CellValue, Verdict
from tests.web.pages.test_pages import get, leaderboard_names

pytestmark = pytest.mark.django_db
ARENA = "/arenas/durable-execution-engines/"


def verified_cells(html: str) -> list[str]:
    """The text of each leaderboard row's "verified" cell, in row order."""
    table = html[html.index('<table class="leaderboard">') :]
    table = table[: table.index("</table>")]
    return [
        re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", cell))).strip()
        for cell in re.findall(
            r"<td[^>]*>(<span class=\"nw\">\d+/\d+ verified.*?)</td>", table, re.S
        )
    ]


def test_no_stale_evidence_says_nothing(client, seeded_arena):
    # the seed's evidence is 75 days old: nothing is stale at the default 180 days
    cells = verified_cells(get(client, ARENA).content.decode())
    assert len(cells) == 6 and not any("stale" in c for c in cells)


def test_each_product_shows_its_stale_cells(client, seeded_arena, settings):
    settings.EVIDENCE_STALE_DAYS = 30
    response = get(client, ARENA)
    counts = arena_stale_counts(arena=seeded_arena, today=freshness.today())
    ids = dict(Product.objects.filter(arena=seeded_arena).values_list("name", "id"))
    names, cells = leaderboard_names(response), verified_cells(response.content.decode())
    for name, cell in zip(names, cells, strict=True):
        stale, total = counts[ids[name]]
        assert 0 < stale <= total
        share = math.floor(100 * stale / total + 0.5)  # (half up, as every share on the pages)
        # of its judged cells: an n/a cell is never stale, so it counts in neither
        assert total == Cell.objects.filter(product_id=ids[name]).exclude(verdict="n/a").count()
        assert f"· {stale} stale ({share}%) of {total} judged cells: evidence older than 30" in cell


def test_the_htmx_leaderboard_keeps_the_stale_counts(client, seeded_arena, settings):
    settings.EVIDENCE_STALE_DAYS = 30
    response = get(
        client, f"{ARENA}?rank=integrity", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="leaderboard"
    )
    assert all(" stale (" in c for c in verified_cells(response.content.decode()))


def test_a_verdict_judged_again_today_leaves_the_stale_count(client, seeded_arena, settings):
    """The counts are kept per content version: a verdict judged again shows at once."""
    settings.EVIDENCE_STALE_DAYS = 30
    temporal = Product.objects.get(arena=seeded_arena, name="Temporal")
    stale, total = arena_stale_counts(arena=seeded_arena, today=freshness.today())[temporal.pk]

    def temporal_cell() -> str:
        response = get(client, ARENA)
        names = leaderboard_names(response)
        return verified_cells(response.content.decode())[names.index("Temporal")]

    assert f"· {stale} stale (" in temporal_cell()
    cell = Cell.objects.filter(product=temporal).exclude(verdict=Verdict.NA).first()
    cell_correct(cell=cell, value=CellValue(Verdict.NONE, None, 0), note="re-checked today")
    assert f"· {stale - 1} stale (" in temporal_cell()
    arena = Arena.objects.get(pk=seeded_arena.pk)
    assert arena_stale_counts(arena=arena, today=freshness.today())[temporal.pk] == (
        stale - 1,
        total,
    )


def test_the_cached_rows_follow_the_stale_age_and_the_day(client, seeded_arena, settings):
    """The leaderboard's rows are cached apart from the page (shared by every filter of the
    matrix): a new stale age, or the next day, shows its own counts."""
    settings.PAGE_CACHE = False
    assert not any("stale" in c for c in verified_cells(get(client, ARENA).content.decode()))
    filtered = get(client, f"{ARENA}?q=retry").content.decode()
    assert verified_cells(filtered) == verified_cells(get(client, ARENA).content.decode())
    settings.EVIDENCE_STALE_DAYS = 30
    assert all(" stale (" in c for c in verified_cells(get(client, ARENA).content.decode()))
    settings.EVIDENCE_STALE_DAYS = 180
    later = freshness.today() + timedelta(days=400)  # past every cell's evidence by 180 days
    with patch.object(freshness, "today", return_value=later):
        assert all(" stale (" in c for c in verified_cells(get(client, ARENA).content.decode()))
