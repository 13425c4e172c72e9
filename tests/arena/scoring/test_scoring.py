"""The scoring rules (pure; no database) against the seed pages, and the fast paths (one pass over
the cells; one cell's delta on a stored tally) against the naive full recomputation."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.scoring.ranking import best_by_persona, leaderboard, uphold_effect
from arena.scoring.results import ProductResult, product_results
from arena.scoring.rounds import DRAWN, compare_many, round_winner
from arena.scoring.tally import (
    CellIn,
    Corrections,
    StoryIn,
    Tally,
    round_half_up,
)
from stories.values import CellValue, Proof, Verdict
from tests.arena.scoring import oracle

pytestmark = pytest.mark.pure

DEFAULT_WEIGHT = 1


def seed_inputs(record):
    ov = record.overview
    stories = [
        StoryIn(i, record.weights.get(s.text, DEFAULT_WEIGHT), s.category, s.persona)
        for i, s in enumerate(ov.stories)
    ]
    cells = [
        CellIn(i, product, m.verdict, m.proof, m.quality)
        for i, s in enumerate(ov.stories)
        for product, m in s.cells
    ]
    return stories, cells


def _without_sums(result):
    """A result without the sums and ranges the naive oracle does not compute."""
    tally = result.tally._replace(weighted_quality=0, weighted_max=0)
    return dataclasses.replace(result, tally=tally, parts=(), pa_range=None, persona_ranges={})


@pytest.fixture(scope="module")
def results(seed_record):
    stories, cells = seed_inputs(seed_record)
    products = [(p, p) for p in seed_record.overview.products]
    return {r.product: r for r in product_results(products, stories, cells)}


def test_verified_and_disputed_counts_match_the_seed_leaderboard(seed_record, results):
    for row in seed_record.overview.leaderboard:
        r = results[row.product].tally
        assert (r.verified, r.with_evidence, r.disputed) == (
            row.verified,
            row.with_evidence,
            row.disputed,
        ), row.product


def test_persona_winners(seed_record, results):
    stories, _ = seed_inputs(seed_record)
    best = {b.persona: b for b in best_by_persona(stories, list(results.values()))}
    backend = best["backend-developer"]
    assert (backend.winner, backend.runner_up, backend.story_count) == ("Inngest", "Temporal", 13)


def compare(stories, cells_a, cells_b, a, b):
    return compare_many(stories, [*cells_a.values(), *cells_b.values()], (a, b))


def test_every_round_of_the_seed_head_to_heads(seed_record):
    stories, cells = seed_inputs(seed_record)
    text_id = {s.text: i for i, s in enumerate(seed_record.overview.stories)}
    for page in seed_record.compares:
        ca = {c.story_id: c for c in cells if c.product == page.a}
        cb = {c.story_id: c for c in cells if c.product == page.b}
        summary = compare(stories, ca, cb, page.a, page.b)
        assert [r.story_id for r in summary.rounds] == [text_id[s.text] for s in page.stories]
        won = [r.best[0] if len(r.best) == 1 else DRAWN for r in summary.rounds]
        assert won == [s.round for s in page.stories]
        assert [r.weight for r in summary.rounds] == [s.weight for s in page.stories]
        won_a, won_b = (side.best for side in summary.sides)
        assert won_a + won_b + summary.drawn == len(page.stories)


def test_inngest_vs_hatchet_summary(seed_record):
    stories, cells = seed_inputs(seed_record)
    ca = {c.story_id: c for c in cells if c.product == "Inngest"}
    cb = {c.story_id: c for c in cells if c.product == "Hatchet"}
    s = compare(stories, ca, cb, "Inngest", "Hatchet")
    assert (s.sides[0].best, s.sides[1].best, s.drawn) == (25, 7, 18)


def test_round_rules():
    def c(p, v, q):
        return CellIn(0, p, v, None if v == "none" else "claimed", q)

    assert round_winner(c("a", "partial", 3), c("b", "disputed", 4)) == "a"
    assert round_winner(c("a", "full", 7), c("b", "full", 9)) == "b"
    assert round_winner(c("a", "none", 0), c("b", "none", 0)) == "drawn"
    assert round_winner(c("a", "disputed", 1), c("b", "none", 0)) == "a"


def test_coverage_and_rounding():
    stories = [StoryIn(1, 3, "c", "p"), StoryIn(2, 1, "c", "p"), StoryIn(3, 2, "d", "q")]
    cells = [
        CellIn(1, "x", "full", "probed", 8),
        CellIn(2, "x", "none", None, 0),
        CellIn(3, "x", "n/a", None, None),
    ]
    (r,) = product_results([("x", "X")], stories, cells)
    assert r.pa_score == 60  # 100 × (3·8 + 1·0) / (30 + 10); n/a excluded
    assert r.category_scores == {"c": 60, "d": None}
    assert r.persona_scores == {"p": 60, "q": None}
    assert (r.tally.verified, r.tally.with_evidence, r.integrity, r.tally.confidence) == (
        1,
        1,
        100,
        "A",
    )
    assert round_half_up(62.5) == 63 and round_half_up(61.49) == 61


def test_integrity_is_clipped_and_confidence_grades():
    assert Tally(verified=1, contradicted=2, upheld=1, with_evidence=4).integrity == 0
    assert Tally(verified=4, with_evidence=4).integrity == 100
    assert Tally().integrity is None
    assert [Tally(verified=v, with_evidence=10).confidence for v in (6, 4, 2, 1)] == [
        "A",
        "B",
        "C",
        "D",
    ]


def test_leaderboard_order_and_vs():
    def res(name, pa, v, e):
        return ProductResult(name, name, pa, {}, {}, Tally(verified=v, with_evidence=e))

    rows = leaderboard(
        [res("b", 50, 1, 10), res("a", 50, 5, 10), res("c", 60, 0, 10), res("d", None, 0, 0)]
    )
    assert [(r.rank, r.result.product, r.vs) for r in rows] == [
        (1, "c", "a"),
        (2, "a", "c"),
        (3, "b", "c"),
        (4, "d", "c"),
    ]


def test_seed_leaderboard_links_reproduce_the_leader_pair(seed_record, results):
    rows = leaderboard(list(results.values()))
    published = seed_record.overview.leaderboard[0]
    assert (
        (rows[0].result.product, rows[0].vs)
        == (published.product, published.vs)
        == ("Temporal", "DBOS")
    )
    assert all(r.vs == "Temporal" for r in rows[1:])


def test_seed_scores_equal_the_naive_recomputation(seed_record):
    stories, cells = seed_inputs(seed_record)
    products = [(p, p) for p in seed_record.overview.products]
    fast = product_results(products, stories, cells)
    slow = [oracle.product_result(p, name, stories, cells) for p, name in products]
    assert [_without_sums(r) for r in fast] == slow
    assert all(r.tally is not None and r.tally.coverage == r.pa_score for r in fast)


def test_upholding_without_changing_values_changes_no_score():
    stories = [StoryIn(1, 2, "c", "p"), StoryIn(2, 1, "c", "p")]
    cells = [CellIn(1, "x", "full", "probed", 8), CellIn(2, "x", "full", "probed", 6)]
    (x,) = product_results([("x", "X")], stories, cells)
    assert x.tally is not None
    effect = uphold_effect(
        [ProductResult.of_tally("x", "X", x.tally)],
        "x",
        weight=2,
        old=CellValue(Verdict.FULL, Proof.PROBED, 8),
        new=CellValue(Verdict.FULL, Proof.PROBED, 8),
    )
    assert (effect.before.coverage, effect.after.coverage) == (73, 73)  # 100 × 22 / 30
    # neither against the product's claim nor in its favour: integrity keeps its 100
    assert (effect.before.integrity, effect.after.integrity) == (100, 100)
    assert (effect.after.upheld, effect.after.upheld_in_favour) == (0, 0)
    assert (effect.rank_before, effect.rank_after) == (1, 1)


# ---------------------------------------------------------------- random arenas

NAMES = ["Alpha", "alpha", "Beta", "BETA", "Gamma", "Delta"]  # ties after lower() included


@st.composite
def cell_values(draw):
    verdict = draw(st.sampled_from(list(Verdict)))
    if verdict == Verdict.NA:
        return CellValue(Verdict.NA)
    if verdict == Verdict.NONE:
        return CellValue(Verdict.NONE, None, 0)
    proof = draw(st.sampled_from(list(Proof)))
    return CellValue(verdict, proof, draw(st.integers(0, 10)))


@st.composite
def corrected_arenas(draw):
    """An arena (stories, products, cells) and the net of the flags upheld on some of its cells,
    by (story, product)."""
    n_stories = draw(st.integers(1, 7))
    stories = [
        StoryIn(
            sid,
            draw(st.integers(1, 3)),
            draw(st.sampled_from(["c1", "c2", "c3"])),
            draw(st.sampled_from(["p1", "p2"])),
        )
        for sid in range(100, 100 + n_stories)
    ]
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True))
    products = [(pid, name) for pid, name in enumerate(names, start=1)]
    cells = []
    corrections = {}
    for pid, _ in products:
        for s in stories:
            if draw(st.integers(0, 9)) == 0:  # now and then a missing cell
                continue
            value = draw(cell_values())
            # now and then flags upheld on it before: the latest need not have left the value the
            # cell shows (an editor may have changed it since)
            net = None
            if draw(st.booleans()):
                net = Corrections(draw(cell_values()), draw(st.just(value) | cell_values()))
                corrections[(s.id, pid)] = net
            correction = net.direction if net is not None else None
            cells.append(CellIn.of(value, story_id=s.id, product=pid, correction=correction))
    return stories, products, cells, corrections


def arenas():
    """An arena: stories, products and cells (some of them corrected by upheld flags)."""
    return corrected_arenas().map(lambda arena: arena[:3])


@settings(max_examples=300, deadline=None)
@given(arena=corrected_arenas(), data=st.data())
def test_one_cell_delta_gives_the_full_recomputation_impact(arena, data):
    stories, products, cells, corrections = arena
    results = product_results(products, stories, cells)
    assert [_without_sums(r) for r in results] == [
        oracle.product_result(pid, name, stories, cells) for pid, name in products
    ]
    if not cells:
        return
    cell = data.draw(st.sampled_from(cells))
    correction = data.draw(cell_values())
    # what the queue reads: the stored tallies, in column order
    standings = [ProductResult.of_tally(r.product, r.name, r.tally) for r in results]
    effect = uphold_effect(
        standings,
        cell.product,
        weight=next(s.weight for s in stories if s.id == cell.story_id),
        old=CellValue(cell.verdict, cell.proof, cell.quality),
        new=correction,
        corrections=corrections.get((cell.story_id, cell.product)),
    )
    expected = oracle.impact_of_upholding(
        products, stories, cells, cell.story_id, cell.product, correction, corrections
    )
    assert (
        effect.before.coverage,
        effect.after.coverage,
        effect.rank_before,
        effect.rank_after,
        effect.before.integrity,
        effect.after.integrity,
    ) == (
        expected.pa_before,
        expected.pa_after,
        expected.rank_before,
        expected.rank_after,
        expected.integrity_before,
        expected.integrity_after,
    )
