"""Integrity and upheld corrections (pure; no database): only a correction against the product's
claim lowers it, one in its favour never does, and a cell corrected more than once counts for its
net correction (docs/scoring.md, "Integrity")."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.scoring.ranking import uphold_effect
from arena.scoring.results import ProductResult, product_results
from arena.scoring.tally import CellIn, Corrections, StoryIn, Tally
from stories.values import CellValue, Direction, Proof, Verdict, correction_direction
from tests.arena.scoring.test_scoring import cell_values, corrected_arenas

pytestmark = [pytest.mark.pure, pytest.mark.long]

FULL_8 = CellValue(Verdict.FULL, Proof.CLAIMED, 8)
PARTIAL_4 = CellValue(Verdict.PARTIAL, Proof.CLAIMED, 4)
NONE = CellValue(Verdict.NONE, None, 0)


def _integrity(*corrected: CellIn) -> tuple[int | None, int, int]:
    """docs/scoring.md's worked example: 10 cells with evidence (stories 1–10), 6 of them
    verified, one contradicted, and a none cell (story 11); the ``corrected`` cells replace
    theirs. Its integrity and its corrections against and in its favour."""
    stories = [StoryIn(i, 1, "c", "p") for i in range(1, 12)]
    cells = {i: CellIn(i, "x", "full", "probed", 8) for i in range(1, 7)}
    cells[7] = CellIn(7, "x", "partial", "contradicted", 4)
    cells |= {i: CellIn.of(FULL_8, story_id=i, product="x") for i in range(8, 11)}
    cells[11] = CellIn.of(NONE, story_id=11, product="x")
    cells |= {c.story_id: c for c in corrected}
    (r,) = product_results([("x", "X")], stories, list(cells.values()))
    return r.integrity, r.tally.upheld, r.tally.upheld_in_favour


def test_the_worked_example_of_docs_scoring():
    assert _integrity() == (50, 0, 0)  # 100 × (6 − 1) / 10
    # against: a claimed full 8 corrected down to partial 4: 100 × (6 − 1 − 1) / 10
    against = CellIn.of(PARTIAL_4, story_id=8, product="x", correction=Direction.AGAINST)
    assert _integrity(against) == (40, 1, 0)
    # in its favour: the none corrected up to a claimed full 8; it now has evidence (11 cells)
    # and holds up: 100 × (6 + 1 − 1) / 11 = 54.5
    favour = CellIn.of(FULL_8, story_id=11, product="x", correction=Direction.FAVOUR)
    assert _integrity(favour) == (55, 0, 1)
    # where the old rule counted it against the product: 100 × (6 − 1 − 1) / 11
    assert Tally(verified=6, with_evidence=11, contradicted=1, upheld=1).integrity == 36
    # both
    assert _integrity(against, favour) == (45, 1, 1)  # 100 × (6 + 1 − 1 − 1) / 11


def test_a_correction_against_the_claim_that_took_the_evidence_still_counts():
    # the contradicted partial 4 corrected to none: still one of the 10 cells, −1 for the
    # correction where it had −1 for its proof: 100 × (6 − 1) / 10, not 100 × (6 − 1) / 9
    gone = CellIn.of(NONE, story_id=7, product="x", correction=Direction.AGAINST)
    assert _integrity(gone) == (50, 1, 0)


def test_a_correction_that_kept_verdict_and_quality_is_neutral():
    kept = CellIn.of(FULL_8, story_id=8, product="x", correction=Direction.NEUTRAL)
    assert _integrity(kept) == _integrity() == (50, 0, 0)


def test_the_net_rule_takes_the_earliest_old_against_the_latest_new():
    wrong, undone = (FULL_8, PARTIAL_4), (PARTIAL_4, FULL_8)
    assert Corrections.of([]) is None
    assert Corrections.of([wrong]).direction == Direction.AGAINST
    # a wrong correction reversed by a later upheld flag does not stick to the product
    assert Corrections.of([wrong, undone]).direction == Direction.NEUTRAL
    assert Corrections.of([undone, (FULL_8, NONE)]).direction == Direction.AGAINST
    assert Corrections.of([(NONE, PARTIAL_4), (FULL_8, FULL_8)]).direction == Direction.FAVOUR


@given(st.lists(st.tuples(cell_values(), cell_values()), min_size=1, max_size=5))
def test_a_cells_net_correction_is_its_first_old_against_its_last_new(changes):
    net = Corrections.of(changes)
    assert net is not None and (net.first, net.last) == (changes[0][0], changes[-1][1])
    first, last = changes[0][0], changes[-1][1]
    assert net.direction == correction_direction(
        first.verdict, first.quality, last.verdict, last.quality
    )


def _corrections(cell, direction, *, keep_proof):
    """Every judgement ``cell`` could be corrected to in ``direction`` (the proof ``cell``'s when
    ``keep_proof``, else any)."""
    proofs = [cell.proof] if keep_proof and cell.proof else list(Proof)
    values = [NONE] + [
        CellValue(v, p, q)
        for v in (Verdict.DISPUTED, Verdict.PARTIAL, Verdict.FULL)
        for p in proofs
        for q in range(11)
    ]
    return [
        v
        for v in values
        if correction_direction(cell.verdict, cell.quality, v.verdict, v.quality) == direction
    ]


def _corrected(arena, data, direction, *, keep_proof=False):
    """One product's result before and after correcting one of its uncorrected cells (drawn) in
    ``direction`` (to a judgement drawn)."""
    stories, products, cells, _ = arena
    plain = [
        c
        for c in cells
        if c.correction is None and _corrections(c, direction, keep_proof=keep_proof)
    ]
    assume(plain)
    cell = data.draw(st.sampled_from(plain))
    new = data.draw(st.sampled_from(_corrections(cell, direction, keep_proof=keep_proof)))
    after = CellIn.of(new, story_id=cell.story_id, product=cell.product, correction=direction)
    changed = [after if c is cell else c for c in cells]
    before_r = product_results(products, stories, cells)
    after_r = product_results(products, stories, changed)
    i = next(i for i, (pid, _) in enumerate(products) if pid == cell.product)
    return before_r[i], after_r[i]


@settings(max_examples=300, deadline=None)
@given(arena=corrected_arenas(), data=st.data())
def test_a_correction_in_the_products_favour_never_lowers_integrity(arena, data):
    before, after = _corrected(arena, data, Direction.FAVOUR)
    assert after.integrity is not None  # a raised verdict has evidence
    assert before.integrity is None or after.integrity >= before.integrity
    assert after.tally.upheld_in_favour == before.tally.upheld_in_favour + 1
    assert after.tally.upheld == before.tally.upheld


@settings(max_examples=300, deadline=None)
@given(arena=corrected_arenas(), data=st.data())
def test_a_correction_against_the_products_claim_never_raises_integrity(arena, data):
    # (a proof changed with it moves integrity on its own: contradicted to probed raises it)
    before, after = _corrected(arena, data, Direction.AGAINST, keep_proof=True)
    assert before.integrity is not None  # a lowered verdict had evidence
    assert after.integrity is None or after.integrity <= before.integrity
    assert after.tally.upheld == before.tally.upheld + 1
    assert after.tally.upheld_in_favour == before.tally.upheld_in_favour


def _preview(old, new, **earlier):
    stories = [StoryIn(1, 1, "c", "p"), StoryIn(2, 1, "c", "p")]
    net = earlier.get("corrections")
    cells = [
        CellIn(1, "x", "full", "probed", 8),
        CellIn.of(old, story_id=2, product="x", correction=net.direction if net else None),
    ]
    (x,) = product_results([("x", "X")], stories, cells)
    assert x.tally is not None
    standings = [ProductResult.of_tally("x", "X", x.tally)]
    return uphold_effect(standings, "x", weight=1, old=old, new=new, **earlier)


def test_the_preview_follows_the_direction_of_old_to_new():
    down = _preview(FULL_8, PARTIAL_4)
    assert (down.before.integrity, down.after.integrity) == (50, 0)  # 100 × (1 − 1) / 2
    up = _preview(NONE, FULL_8)
    assert (up.before.integrity, up.after.integrity) == (100, 100)  # 100 × (1 + 1) / 2
    assert (up.after.upheld, up.after.upheld_in_favour) == (0, 1)


def test_the_preview_of_undoing_a_wrong_correction_restores_integrity():
    wrong = Corrections(FULL_8, PARTIAL_4)
    undo = _preview(PARTIAL_4, FULL_8, corrections=wrong)
    assert (undo.before.integrity, undo.after.integrity) == (0, 50)
    assert (undo.after.upheld, undo.after.upheld_in_favour) == (0, 0)
