"""Comparing two to six products (``compare_many``): the pair rule generalised. The best
verdict wins, then the higher quality; products tied for the best share it; a round where every
competing cell ties is drawn; n/a cells sit out, and a story is a round only when at least two
cells apply. For two products each round is ``round_winner``'s."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.scoring.rounds import (
    DRAWN,
    ManyRound,
    ManyStanding,
    ManySummary,
    compare_many,
    round_winner,
)
from arena.scoring.tally import CellIn, StoryIn, verdict_strength

pytestmark = pytest.mark.pure

VERDICTS = ["full", "partial", "disputed", "none", "n/a"]


def cell(story: int, product: str, verdict: str, quality: int | None = None) -> CellIn:
    if verdict == "n/a":
        return CellIn(story, product, verdict, None, None)
    if verdict == "none":
        return CellIn(story, product, verdict, None, 0)
    return CellIn(story, product, verdict, "claimed", 5 if quality is None else quality)


def one_round(*cells: CellIn, products=("a", "b", "c")) -> ManyRound | None:
    summary = compare_many([StoryIn(1, 3, "cat", "p")], cells, products)
    return summary.rounds[0] if summary.rounds else None


def test_the_best_verdict_wins_before_quality():
    r = one_round(cell(1, "a", "partial", 3), cell(1, "b", "disputed", 9), cell(1, "c", "none"))
    assert r.best == ("a",) and not r.shared and not r.drawn


def test_equal_verdicts_go_to_the_higher_quality():
    r = one_round(cell(1, "a", "full", 7), cell(1, "b", "full", 9), cell(1, "c", "full", 8))
    assert r.best == ("b",)


def test_products_tied_for_the_best_share_it():
    r = one_round(cell(1, "a", "full", 8), cell(1, "b", "partial", 9), cell(1, "c", "full", 8))
    assert r.best == ("a", "c") and r.shared and not r.drawn


def test_a_round_where_every_competing_cell_ties_is_drawn():
    r = one_round(cell(1, "a", "none"), cell(1, "b", "none"), cell(1, "c", "none"))
    assert r.drawn and r.best == () and r.competing == ("a", "b", "c")


def test_na_cells_sit_out():
    r = one_round(cell(1, "a", "n/a"), cell(1, "b", "partial", 4), cell(1, "c", "partial", 4))
    assert r.competing == ("b", "c") and r.drawn  # the two that apply tie
    r = one_round(cell(1, "a", "n/a"), cell(1, "b", "none"), cell(1, "c", "partial", 1))
    assert r.competing == ("b", "c") and r.best == ("c",)


def test_a_story_is_a_round_only_when_two_cells_apply():
    assert one_round(cell(1, "a", "n/a"), cell(1, "b", "n/a"), cell(1, "c", "full", 9)) is None
    assert one_round(cell(1, "a", "full", 9)) is None  # the others have no cell at all


def test_the_summary_counts_best_shared_weighted_and_drawn_in_the_order_given():
    stories = [StoryIn(1, 3, "x", "p"), StoryIn(2, 2, "x", "p"), StoryIn(3, 1, "y", "p")]
    cells = [
        # story 1: a alone
        cell(1, "a", "full", 9), cell(1, "b", "full", 8), cell(1, "c", "n/a"),
        # story 2: a and b share
        cell(2, "a", "partial", 5), cell(2, "b", "partial", 5), cell(2, "c", "none"),
        # story 3: drawn
        cell(3, "a", "none"), cell(3, "b", "none"), cell(3, "c", "none"),
        # another product's cells are ignored
        cell(1, "z", "full", 10),
    ]  # fmt: skip
    s = compare_many(stories, cells, ["c", "a", "b"])
    assert s.products == ("c", "a", "b") and list(s.standings) == ["c", "a", "b"]
    assert [r.story_id for r in s.rounds] == [1, 2, 3]
    assert s.standings["a"] == ManyStanding("a", best=1, shared=1, weighted=5)
    assert s.standings["b"] == ManyStanding("b", best=0, shared=1, weighted=2)
    assert s.standings["c"] == ManyStanding("c", best=0, shared=0, weighted=0)
    assert s.drawn == 1
    # a category's rounds are tallied the same way
    part = ManySummary.of(s.rounds[:1], s.products)
    assert (part.standings["a"].best, part.standings["a"].weighted, part.drawn) == (1, 3, 0)


verdict_cells = st.tuples(st.sampled_from(VERDICTS), st.integers(0, 10))


@given(
    st.lists(
        st.tuples(
            st.integers(1, 5),
            st.one_of(st.none(), verdict_cells),
            st.one_of(st.none(), verdict_cells),
        ),
        max_size=25,
    )
)
def test_two_products_give_exactly_the_rounds_of_round_winner(rows):
    stories = [StoryIn(i, weight, "c", "p") for i, (weight, _, _) in enumerate(rows)]
    cells_a, cells_b = {}, {}
    for i, (_, ca, cb) in enumerate(rows):
        if ca is not None:
            cells_a[i] = cell(i, "a", *ca)
        if cb is not None:
            cells_b[i] = cell(i, "b", *cb)
    many = compare_many(stories, [*cells_a.values(), *cells_b.values()], ["a", "b"])
    both = [i for i in sorted(cells_a.keys() & cells_b.keys()) if cells_a[i].verdict != "n/a"]
    rounds = [i for i in both if cells_b[i].verdict != "n/a"]
    won = [r.best[0] if len(r.best) == 1 else DRAWN for r in many.rounds]
    assert [(r.story_id, r.weight, w) for r, w in zip(many.rounds, won, strict=True)] == [
        (i, stories[i].weight, round_winner(cells_a[i], cells_b[i])) for i in rounds
    ]
    a, b = many.sides
    assert (a.best, b.best) == tuple(won.count(p) for p in "ab")
    assert a.shared == b.shared == 0


@given(
    st.integers(2, 6).flatmap(
        lambda n: st.tuples(
            st.just([f"p{i}" for i in range(n)]),
            st.lists(
                st.lists(st.one_of(st.none(), verdict_cells), min_size=n, max_size=n), max_size=12
            ),
        )
    )
)
def test_the_best_are_exactly_the_strongest_competing_cells(case):
    products, rows = case
    stories = [StoryIn(i, 1, "c", "p") for i in range(len(rows))]
    cells = [
        cell(i, p, *value)
        for i, values in enumerate(rows)
        for p, value in zip(products, values, strict=True)
        if value is not None
    ]
    by = {(c.story_id, c.product): c for c in cells}
    summary = compare_many(stories, cells, products)
    for r in summary.rounds:
        assert len(r.competing) >= 2 and all(
            by[r.story_id, p].verdict != "n/a" for p in r.competing
        )
        strength = {
            p: verdict_strength(by[r.story_id, p].verdict, by[r.story_id, p].quality)
            for p in r.competing
        }
        top = max(strength.values())
        tied = tuple(p for p in r.competing if strength[p] == top)
        assert r.best == (() if tied == r.competing else tied)
        # the pair rule agrees with every pair of a best and a beaten product
        for p in r.best:
            for q in set(r.competing) - set(r.best):
                assert round_winner(by[r.story_id, p], by[r.story_id, q]) == p
    # outright and shared rounds, and drawn ones, account for every round
    outright = sum(s.best for s in summary.standings.values())
    shared_rounds = sum(1 for r in summary.rounds if r.shared)
    assert outright + shared_rounds + summary.drawn == len(summary.rounds)
