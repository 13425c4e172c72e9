"""The ranking rules the pages show on top of the stored scores (pure, no database): shared
ranks for ties with what broke them, the "vs" partner of each leaderboard row, what decided a
persona's winner, and the order of stories sorted by one product's verdicts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.scoring.ranking import order_by, persona_decided_by, places, rivals
from arena.scoring.results import ProductResult
from arena.scoring.tally import Tally, verdict_strength
from stories.values import Verdict

pytestmark = pytest.mark.pure


def result(name: str, pa: int | None, verified: int = 1, with_evidence: int = 2):
    return ProductResult(
        name, name, pa, {}, {}, Tally(verified=verified, with_evidence=with_evidence)
    )


def test_equal_scores_share_the_first_ones_rank_and_say_what_ordered_them():
    rows = order_by(
        [
            result("Zed", 57, verified=3, with_evidence=4),
            result("Alpha", 60),
            result("Beta", 57, verified=1, with_evidence=4),
            result("Gamma", 50),
        ]
    )
    assert [r.name for r in rows] == ["Alpha", "Zed", "Beta", "Gamma"]
    placed = places(rows)
    assert [(p.rank, p.tied) for p in placed] == [(1, False), (2, True), (2, True), (4, False)]
    assert placed[1].decided_by == "verified share" and placed[0].decided_by == ""
    same_share = order_by([result("B", 57), result("A", 57)])
    assert {p.decided_by for p in places(same_share)} == {"name"}
    mixed = order_by([result("C", 5), result("B", 5), result("A", 5, verified=2)])
    assert places(mixed)[0].decided_by == "verified share, then name"


def test_products_without_a_score_share_the_last_rank():
    rows = order_by([result("A", None), result("B", 10), result("C", None)])
    assert [p.rank for p in places(rows)] == [1, 2, 2]


@given(st.lists(st.one_of(st.none(), st.integers(0, 5)), min_size=1, max_size=12))
def test_a_rank_is_one_more_than_the_rows_strictly_ahead(scores):
    rows = order_by([result(f"p{i}", s) for i, s in enumerate(scores)])
    for row, place in zip(rows, places(rows), strict=True):
        ahead = [
            r
            for r in rows
            if (r.pa_score is not None) and (row.pa_score is None or r.pa_score > row.pa_score)
        ]
        assert place.rank == len(ahead) + 1
        assert place.tied == (sum(r.pa_score == row.pa_score for r in rows) > 1)


def test_the_vs_partner_is_the_nearest_rival_with_published_detail():
    order = ["temporal", "dbos", "inngest", "trigger", "hatchet"]
    rival_of = rivals(order, published={"inngest", "trigger", "hatchet"})
    assert rival_of == {
        "temporal": "inngest",  # dbos is nearer, but has nothing published
        "dbos": "inngest",
        "inngest": "trigger",  # dbos above at the same distance has nothing published
        "trigger": "inngest",  # equal distance: the one ranked above
        "hatchet": "trigger",
    }
    # with nothing published anywhere, the nearest, the one above on equal distance
    assert rivals(order, published=()) == {
        "temporal": "dbos",
        "dbos": "temporal",
        "inngest": "dbos",
        "trigger": "inngest",
        "hatchet": "trigger",
    }
    assert rivals(["solo"], published={"solo"}) == {"solo": None}


@given(
    st.lists(st.integers(0, 50), min_size=2, max_size=10, unique=True),
    st.sets(st.integers(0, 50)),
)
def test_a_vs_partner_is_another_product_published_when_one_is(order, published):
    rival_of = rivals(order, published)
    for i, product in enumerate(order):
        rival = rival_of[product]
        assert rival is not None and rival != product
        others = [p for p in order if p != product and p in published]
        if others:
            assert rival in published
            nearest = min(abs(order.index(p) - i) for p in others)
            assert abs(order.index(rival) - i) == nearest


def test_a_persona_tie_says_what_decided_it():
    assert persona_decided_by(80, 70, 50, 60) == ""
    assert persona_decided_by(80, 80, 60, 50) == "PA Score"
    assert persona_decided_by(80, 80, 50, 50) == "name"
    assert persona_decided_by(None, None, 1, 2) == ""


def test_stories_sort_by_verdict_then_quality_with_na_and_no_cell_last():
    cells = [
        (Verdict.NA, None),
        (Verdict.PARTIAL, 9),
        (None, None),
        (Verdict.FULL, 2),
        (Verdict.NONE, 0),
        (Verdict.DISPUTED, 8),
        (Verdict.FULL, 7),
    ]
    ordered = sorted(cells, key=lambda c: verdict_strength(*c), reverse=True)
    assert ordered == [
        (Verdict.FULL, 7),
        (Verdict.FULL, 2),
        (Verdict.PARTIAL, 9),
        (Verdict.DISPUTED, 8),
        (Verdict.NONE, 0),
        (Verdict.NA, None),
        (None, None),
    ]
