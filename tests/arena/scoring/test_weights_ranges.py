"""A visitor's weights and the uncertainty of a score (pure; no database): the personal score is
the published formula with multiplied story weights, the PA Score is its case "all 1", and a range
always contains its score and only widens with unverified cells."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.scoring.ranking import order_by
from arena.scoring.results import (
    PUBLISHED,
    Weights,
    personal_score,
    product_results,
    quality_bounds,
    range_groups,
    score_range,
)
from arena.scoring.tally import CellIn, StoryIn, round_half_up
from stories.values import CellValue, Proof, Verdict
from tests.arena.scoring.test_scoring import arenas, seed_inputs

pytestmark = [pytest.mark.pure, pytest.mark.long]

CATEGORIES = ["c1", "c2", "c3"]
PERSONAS = ["p1", "p2"]


@st.composite
def weightings(draw):
    return Weights(
        categories={c: draw(st.integers(0, 3)) for c in CATEGORIES if draw(st.booleans())},
        personas={p: draw(st.integers(0, 3)) for p in PERSONAS if draw(st.booleans())},
    )


def naive_personal(stories, cells, product, weights):
    """The formula as written in docs/scoring.md, cell by cell."""
    story = {s.id: s for s in stories}
    num = den = 0
    for c in cells:
        if c.product != product or c.verdict == Verdict.NA:
            continue
        s = story[c.story_id]
        k = weights.categories.get(s.category, 1) * weights.personas.get(s.persona, 1)
        num += s.weight * k * (c.quality or 0)
        den += 10 * s.weight * k
    return round_half_up(100 * num / den) if den else None


@settings(max_examples=300, deadline=None)
@given(arena=arenas(), weights=weightings())
def test_personal_score_is_the_formula_with_multiplied_weights(arena, weights):
    stories, products, cells = arena
    results = product_results(products, stories, cells)
    for r in results:
        assert personal_score(r.parts, weights) == naive_personal(
            stories, cells, r.product, weights
        )
        # the published score is the case "every weight 1"
        assert personal_score(r.parts) == r.pa_score
        assert personal_score(r.parts, Weights({c: 1 for c in CATEGORIES})) == r.pa_score


@settings(max_examples=300, deadline=None)
@given(arena=arenas(), weights=weightings())
def test_a_range_contains_its_score(arena, weights):
    stories, products, cells = arena
    for r in product_results(products, stories, cells):
        score = personal_score(r.parts, weights)
        rng = score_range(r.parts, weights)
        assert (score is None) == (rng is None)
        if rng is not None:
            assert 0 <= rng[0] <= score <= rng[1] <= 100
        assert r.pa_range == score_range(r.parts)
        for persona, prange in r.persona_ranges.items():
            pscore = r.persona_scores[persona]
            assert prange is None if pscore is None else prange[0] <= pscore <= prange[1]


@settings(max_examples=300, deadline=None)
@given(arena=arenas(), data=st.data())
def test_an_unverified_cell_only_widens_the_range(arena, data):
    """Taking a cell's verification away (its proof becomes 'claimed') never narrows the range;
    verifying it never widens it."""
    stories, products, cells = arena
    evidenced = [c for c in cells if c.verdict not in (Verdict.NA, Verdict.NONE)]
    if not evidenced:
        return
    cell = data.draw(st.sampled_from(evidenced))
    i = cells.index(cell)
    products_of = [(cell.product, "x")]

    def range_with(proof):
        changed = [*cells[:i], dataclasses.replace(cell, proof=proof), *cells[i + 1 :]]
        return product_results(products_of, stories, changed)[0].pa_range

    verified, claimed = range_with(Proof.PROBED), range_with(Proof.CLAIMED)
    assert claimed[0] <= verified[0] and claimed[1] >= verified[1]


def test_quality_bounds_step_one_verdict():
    def bounds(verdict, proof, q):
        return quality_bounds(CellIn.of(CellValue(verdict, proof, q), story_id=1, product=1))

    assert bounds(Verdict.FULL, Proof.CLAIMED, 8) == (6, 8)  # partial at most 6; full stays
    assert bounds(Verdict.PARTIAL, Proof.CLAIMED, 5) == (4, 7)  # disputed ≤ 4 / full ≥ 7
    assert bounds(Verdict.PARTIAL, Proof.AUTH_GATED, 2) == (1, 7)
    assert bounds(Verdict.DISPUTED, Proof.CLAIMED, 3) == (0, 4)  # none / partial ≥ 3, +1
    assert bounds(Verdict.PARTIAL, Proof.PROBED, 5) == (5, 5)  # verified: as sure as it is
    assert bounds(Verdict.PARTIAL, Proof.COMMUNITY, 5) == (5, 5)
    assert bounds(Verdict.DISPUTED, Proof.CONTRADICTED, 4) == (4, 4)
    assert bounds(Verdict.NONE, None, 0) == (0, 0)


def test_range_groups_hold_ranges_that_all_overlap():
    assert range_groups([(50, 60), (45, 58), (40, 44), None, (10, 12)]) == [1, 1, 2, 3, 4]
    # (55, 61) overlaps (60, 72) but not (70, 80): it starts a group
    assert range_groups([(70, 80), (60, 72), (55, 61)]) == [1, 1, 2]
    assert range_groups([(70, 80), (65, 72), (60, 70)]) == [1, 1, 1]
    assert range_groups([]) == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 100), st.integers(0, 100), st.integers(0, 100)).map(sorted),
        max_size=8,
    )
)
def test_every_pair_in_a_group_overlaps(triples):
    ranges = [(low, high) for low, _, high in sorted(triples, key=lambda t: -t[1])]
    groups = range_groups(ranges)
    for i, ri in enumerate(ranges):
        for j, rj in enumerate(ranges):
            if groups[i] == groups[j]:
                assert ri[0] <= rj[1] and rj[0] <= ri[1]
    # groups are runs, numbered in order
    assert groups == sorted(groups) and (not groups or groups[0] == 1)


def test_ignoring_everything_leaves_no_score():
    stories = [StoryIn(1, 2, "c1", "p1"), StoryIn(2, 1, "c2", "p1")]
    cells = [CellIn(1, "x", "full", "probed", 8), CellIn(2, "x", "partial", "claimed", 4)]
    (x,) = product_results([("x", "X")], stories, cells)
    assert x.pa_score == 67  # 100 × (16 + 4) / 30
    assert personal_score(x.parts, Weights({"c1": 0, "c2": 0})) is None
    assert score_range(x.parts, Weights(personas={"p1": 0})) is None
    assert personal_score(x.parts, Weights({"c2": 0})) == 80
    assert personal_score(x.parts, Weights({"c2": 3})) == 56  # 100 × (16 + 12) / 50
    assert x.pa_range == (63, 77)  # the claimed partial 4 → 3 / 7


def test_seed_ranges_contain_the_published_scores(seed_record):
    stories, cells = seed_inputs(seed_record)
    products = [(p, p) for p in seed_record.overview.products]
    for r in product_results(products, stories, cells):
        assert r.pa_range is not None
        assert r.pa_range[0] <= r.pa_score <= r.pa_range[1]


def test_order_by_weights_with_published_weights_is_the_leaderboard(seed_record):
    stories, cells = seed_inputs(seed_record)
    products = [(p, p) for p in seed_record.overview.products]
    results = product_results(products, stories, cells)
    assert order_by(results, weights=PUBLISHED) == order_by(results)


@settings(max_examples=200, deadline=None)
@given(arena=arenas(), data=st.data())
def test_the_cells_order_changes_nothing_stored(arena, data):
    """The database gives the cells in any order (PostgreSQL does): the stored parts, and so the
    categories' order they give, follow the stories' order."""
    stories, products, cells = arena
    shuffled = data.draw(st.permutations(cells))
    assert product_results(products, stories, shuffled) == product_results(products, stories, cells)
