"""The recompute stores each product's rank range and the arena's close calls with what would
settle them; verifying a stored settle set through the editor's service and recomputing makes the
published leader lead, as ``pair_call`` reads the stored ranges."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import CALL_ORDER, SETTLE_LISTED, Arena, CloseCall, ProductScore, SettleCell
from arena.recompute import arena_recompute_scores
from arena.scoring.certainty import Ranged, pair_call
from products.models import Product
from stories.models import Cell
from stories.services import cell_edit
from stories.values import Proof

pytestmark = pytest.mark.django_db


def stored_close_calls(arena: Arena) -> list[dict]:
    """The arena's stored close calls in leaderboard order: the leader ``a``, the trailer ``b``,
    the listed cells ``settle``, ``count`` (the whole settle set's) and ``exact``."""
    listed: dict[int, list[int]] = {}
    for call, cell in SettleCell.objects.order_by("position").values_list("call", "cell"):
        listed.setdefault(call, []).append(cell)
    return [
        {
            "a": c.leader_id,
            "b": c.trailer_id,
            "settle": listed.get(c.pk, []),
            "count": c.settle_count,
            "exact": c.exact,
        }
        for c in CloseCall.objects.filter(arena=arena).order_by(*CALL_ORDER)
    ]


def _ranged(row: ProductScore) -> Ranged:
    return Ranged(row.product_id, row.pa_score, row.pa_low, row.pa_high)


def test_stored_rank_ranges_follow_the_stored_score_ranges(seeded_arena):
    rows = list(ProductScore.objects.filter(arena=seeded_arena).order_by("rank"))
    known = [(r.pa_low, r.pa_high) for r in rows]
    for row in rows:
        assert row.rank_best == 1 + sum(1 for low, _ in known if low > row.pa_high)
        assert row.rank_worst == len(rows) - sum(1 for _, high in known if high < row.pa_low)
        assert row.rank_best <= row.rank <= row.rank_worst


def test_stored_close_calls_are_every_close_pair_with_cells_of_its_two_products(seeded_arena):
    rows = {r.product_id: r for r in ProductScore.objects.filter(arena=seeded_arena)}
    calls = stored_close_calls(seeded_arena)
    close = {
        frozenset((a, b))
        for a in rows
        for b in rows
        if a != b and pair_call(_ranged(rows[a]), _ranged(rows[b])).close
    }
    assert {frozenset((c["a"], c["b"])) for c in calls} == close
    assert calls, "the seed arena has pairs too close to call"
    for call in calls:
        assert rows[call["a"]].pa_score >= rows[call["b"]].pa_score
        assert call["exact"] is True
        cells = Cell.objects.filter(pk__in=call["settle"])
        assert len(cells) == len(call["settle"]) == min(call["count"], SETTLE_LISTED)
        for cell in cells:
            assert cell.product_id in (call["a"], call["b"])
            assert cell.proof in (Proof.CLAIMED, Proof.AUTH_GATED)


def test_verifying_a_settle_set_settles_the_pair(seeded_arena):
    calls = stored_close_calls(seeded_arena)
    call = next(c for c in calls if 0 < c["count"] <= SETTLE_LISTED)  # (all of it listed)
    for cell in Cell.objects.filter(pk__in=call["settle"]):
        cell_edit(cell=cell, changes={"proof": Proof.PROBED}, base_version=cell.version)
    arena_recompute_scores(arena_id=seeded_arena.pk)
    rows = {r.product_id: r for r in ProductScore.objects.filter(arena=seeded_arena)}
    assert pair_call(_ranged(rows[call["a"]]), _ranged(rows[call["b"]])).leader == call["a"]
    after = stored_close_calls(seeded_arena)
    assert {frozenset((call["a"], call["b"]))} - {frozenset((c["a"], c["b"])) for c in after}


def test_the_recompute_costs_as_many_queries_however_many_products(seeded_arena):
    def cost() -> int:
        with CaptureQueriesContext(connection) as ctx:
            arena_recompute_scores(arena_id=seeded_arena.pk)
        return len(ctx)

    before = cost()
    gone = Product.objects.filter(arena=seeded_arena).order_by("-position")[:3]
    Cell.objects.filter(product__in=list(gone)).delete()
    Product.objects.filter(pk__in=[p.pk for p in gone]).delete()
    assert cost() == before
    assert ProductScore.objects.filter(arena=seeded_arena).count() == 3
