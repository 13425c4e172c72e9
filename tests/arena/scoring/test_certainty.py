"""Rank ranges, close calls and what would settle them (``certainty``), against brute force:
every subset of the pair's unverified cells verified (their proof becomes ``probed``), the scores
recomputed from scratch and read by ``pair_call``."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.scoring import certainty as certainty_module
from arena.scoring.certainty import (
    Side,
    close_calls,
    pair_call,
    ranged,
    rank_ranges,
    settle_set,
    sides,
)
from arena.scoring.ranking import leaderboard
from arena.scoring.results import is_unverified, product_results
from arena.scoring.tally import CellIn, StoryIn
from stories.values import CellValue, Proof, Verdict

from .test_scoring import cell_values

pytestmark = pytest.mark.pure


@st.composite
def small_arenas(draw):
    """Up to 5 stories and 4 products, mostly unverified cells (so that pairs are close)."""
    n_stories = draw(st.integers(1, 5))
    stories = [
        StoryIn(sid, draw(st.integers(1, 3)), "c", draw(st.sampled_from(["p1", "p2"])))
        for sid in range(100, 100 + n_stories)
    ]
    products = [(pid, f"P{pid}") for pid in range(1, draw(st.integers(2, 4)) + 1)]
    cells = []
    for pid, _ in products:
        for s in stories:
            if draw(st.integers(0, 9)) == 0:
                continue
            value = draw(cell_values())
            if value.verdict not in (Verdict.NA, Verdict.NONE) and draw(st.integers(0, 2)):
                value = CellValue(value.verdict, Proof.CLAIMED, value.quality)
            cells.append(CellIn.of(value, story_id=s.id, product=pid))
    return stories, products, cells


def _board(stories, products, cells):
    return [r.result for r in leaderboard(product_results(products, stories, cells))]


def _verified(cells, keys):
    keys = set(keys)
    return [replace(c, proof=Proof.PROBED) if (c.story_id, c.product) in keys else c for c in cells]


def _call_after(stories, products, cells, keys, a, b):
    by = {r.product: r for r in _board(stories, products, _verified(cells, keys))}
    return pair_call(ranged(by[a]), ranged(by[b]))


@settings(max_examples=150, deadline=None)
@given(arena=small_arenas())
def test_settle_sets_are_the_smallest_that_separate_by_brute_force(arena):
    stories, products, cells = arena
    board = _board(stories, products, cells)
    calls = close_calls(board, sides(board, stories, cells))
    by = {r.product: r for r in board}
    scored = [r for r in board if r.pa_range is not None]
    # every close pair is listed once, and only those
    close = {
        frozenset((x.product, y.product))
        for i, x in enumerate(scored)
        for y in scored[i + 1 :]
        if pair_call(ranged(x), ranged(y)).close
    }
    assert {frozenset((c["a"], c["b"])) for c in calls} == close
    for call in calls:
        assert call["exact"]
        assert (by[call["a"]].pa_score or 0) >= (by[call["b"]].pa_score or 0)
        pool = [
            (c.story_id, c.product)
            for c in cells
            if c.product in (call["a"], call["b"]) and is_unverified(c)
        ]
        smallest = next(
            (
                size
                for size in range(len(pool) + 1)
                if any(
                    _call_after(stories, products, cells, keys, call["a"], call["b"]).leader
                    == call["a"]
                    for keys in combinations(pool, size)
                )
            ),
            None,
        )
        if smallest is None:
            assert call["settle"] == ()
            # no verification ever lets the trailer lead either
            everything = _call_after(stories, products, cells, pool, call["a"], call["b"])
            assert everything.close
            assert by[call["a"]].pa_score == by[call["b"]].pa_score
        else:
            assert len(call["settle"]) == smallest
            after = _call_after(stories, products, cells, call["settle"], call["a"], call["b"])
            assert after.leader == call["a"]
            assert set(call["settle"]) <= set(pool)


@settings(max_examples=150, deadline=None)
@given(arena=small_arenas())
def test_the_greedy_bound_settles_too(arena, monkeypatch_module):
    stories, products, cells = arena
    board = _board(stories, products, cells)
    exact = {(c["a"], c["b"]): c for c in close_calls(board, sides(board, stories, cells))}
    monkeypatch_module.setattr(certainty_module, "SETTLE_EXACT_LIMIT", -1)
    try:
        greedy = close_calls(board, sides(board, stories, cells))
    finally:
        monkeypatch_module.undo()
    for call in greedy:
        assert not call["exact"]
        best = exact[(call["a"], call["b"])]
        assert bool(call["settle"]) == bool(best["settle"])
        assert len(call["settle"]) >= len(best["settle"])
        if call["settle"]:
            after = _call_after(stories, products, cells, call["settle"], call["a"], call["b"])
            assert after.leader == call["a"]


def _stepwise(leader: Side, trailer: Side):
    """The greedy rule as written: one step at a time, the larger gain in score points first."""
    i = j = 0
    while not leader.lows[i] > trailer.highs[j]:
        a = leader.raise_low[i][0] * trailer.maximum if i < len(leader.raise_low) else -1
        b = trailer.cut_high[j][0] * leader.maximum if j < len(trailer.cut_high) else -1
        if a < 0 and b < 0:
            return None
        i, j = (i + 1, j) if a >= b else (i, j + 1)
    return i, j


@st.composite
def sides_of_a_pair(draw):
    def side(key):
        n = draw(st.integers(1, 30))
        weights = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
        maximum = 10 * sum(weights)
        low = draw(st.integers(0, maximum // 2))
        up = sorted(draw(st.lists(st.integers(1, 30), max_size=n)), reverse=True)
        down = sorted(draw(st.lists(st.integers(1, 30), max_size=n)), reverse=True)
        high = min(maximum, low + sum(up) + draw(st.integers(0, 20)))
        keys = [(k, key) for k in range(n)]
        return Side(
            key,
            low,
            high,
            maximum,
            tuple(zip(up, keys[: len(up)], strict=True)),
            tuple(zip(down, keys[: len(down)], strict=True)),
        )

    return side("lead"), side("trail")


@settings(max_examples=300, deadline=None)
@given(pair=sides_of_a_pair())
def test_the_bisected_greedy_takes_the_steps_the_rule_takes(pair):
    leader, trailer = pair
    assert certainty_module._greedy(leader, trailer) == _stepwise(leader, trailer)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


@settings(max_examples=200, deadline=None)
@given(arena=small_arenas())
def test_rank_ranges_hold_the_published_rank_and_follow_the_definition(arena):
    stories, products, cells = arena
    ranked = leaderboard(product_results(products, stories, cells))
    spans = rank_ranges([(r.result.product, r.result.pa_range) for r in ranked])
    known = [r.result.pa_range for r in ranked if r.result.pa_range]
    for row in ranked:
        span = spans[row.result.product]
        if row.result.pa_range is None:
            assert span is None
            continue
        low, high = row.result.pa_range
        assert span is not None
        assert span[0] <= row.rank <= span[1]
        assert span[0] == 1 + sum(1 for o in known if o[0] > high)
        assert span[1] == len(known) - sum(1 for o in known if o[1] < low)
        # a product whose range overlaps nobody else's has exactly its rank
        if all(o[0] <= high and o[1] >= low for o in known if o != row.result.pa_range):
            assert span == (1, len(known))


def _cell(story, product, verdict, proof, quality):
    return CellIn.of(CellValue(verdict, proof, quality), story_id=story, product=product)


def test_worked_example():
    """docs/scoring.md, "What would settle it": A 62 (56–66) against B 56 (44–64)."""
    stories = [StoryIn(i, 1, "c", "p") for i in range(1, 6)]
    a = [
        _cell(1, "a", Verdict.FULL, Proof.CLAIMED, 8),  # 8 → low 6
        _cell(2, "a", Verdict.FULL, Proof.PROBED, 8),
        _cell(3, "a", Verdict.PARTIAL, Proof.CLAIMED, 5),  # low 4, high 7
        _cell(4, "a", Verdict.FULL, Proof.PROBED, 7),
        _cell(5, "a", Verdict.PARTIAL, Proof.PROBED, 3),
    ]
    b = [
        _cell(1, "b", Verdict.PARTIAL, Proof.CLAIMED, 6),  # low 4, high 7
        _cell(2, "b", Verdict.PARTIAL, Proof.CLAIMED, 5),  # low 4, high 7
        _cell(3, "b", Verdict.FULL, Proof.PROBED, 7),
        _cell(4, "b", Verdict.FULL, Proof.PROBED, 7),
        _cell(5, "b", Verdict.DISPUTED, Proof.CLAIMED, 3),  # low 0, high 4
    ]
    board = _board(stories, [("a", "A"), ("b", "B")], a + b)
    assert [(r.product, r.pa_score, r.pa_range) for r in board] == [
        ("a", 62, (56, 66)),
        ("b", 56, (44, 64)),
    ]
    [call] = close_calls(board, sides(board, stories, a + b))
    # each point of Σ w·q is 2 points of score: A's low must gain x and B's high lose y with
    # 28 + x > 32 − y. Gains: A story 1 (+2), story 3 (+1); B story 2 (−2), 1 and 5 (−1 each).
    # No two cells reach 5; three do: A's story 1 (low 60) and B's stories 2 and 1 (high 58).
    assert (call["a"], call["b"], call["exact"]) == ("a", "b", True)
    assert call["settle"] == ((1, "a"), (2, "b"), (1, "b"))
    assert (
        _call_after(stories, [("a", "A"), ("b", "B")], a + b, call["settle"], "a", "b").leader
        == "a"
    )
    assert _call_after(stories, [("a", "A"), ("b", "B")], a + b, call["settle"][:2], "a", "b").close


def test_greedy_by_largest_gain_is_not_exact_under_rounding(monkeypatch):
    """Why the exact split search is the rule (docs/scoring.md). The leader's low is 33/90 (37),
    the trailer's high 56/110 (51). In score points the leader's cell (+7/90) gains more than each
    of the trailer's (−8/110), so greedy takes it first: 40/90 (44) against 48/110 (44) after two
    cells is not settled (unrounded, 44.4 > 43.6 would be), and it needs a third. The trailer's
    two cells alone do it: 37 against 40/110 (36)."""
    leader = Side("a", 33, 90, 90, ((7, (1, "a")),), ())
    trailer = Side("b", 0, 56, 110, (), ((8, (1, "b")), (8, (2, "b"))))
    assert settle_set(leader, trailer) == (((1, "b"), (2, "b")), True)
    monkeypatch.setattr(certainty_module, "SETTLE_EXACT_LIMIT", -1)
    settle, exact = settle_set(leader, trailer)
    assert (len(settle), exact) == (3, False)
