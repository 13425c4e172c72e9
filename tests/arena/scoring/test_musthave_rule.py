"""The must-have rule (arena.scoring.musthave), checked against its definition in docs/scoring.md
on generated products: a pass needs every story full and every fact stated and met; a fact
nobody stated is never a pass; certainty follows the verified cells."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.scoring.musthave import (
    NEED_MANAGED,
    NEED_OPEN_SOURCE,
    NEED_SELF_HOSTED,
    NEEDS,
    Certainty,
    Facts,
    MustHaves,
    Outcome,
    must_answer,
    need_met,
)
from arena.scoring.tally import CellIn
from stories.values import EVIDENCED, Proof, Verdict

pytestmark = pytest.mark.pure

STORIES = list(range(1, 7))
PRODUCT = "p"

cells_st = st.dictionaries(
    st.sampled_from(STORIES),
    st.tuples(st.sampled_from(list(Verdict)), st.sampled_from([None, *Proof])),
).map(
    lambda by_story: [
        CellIn(story, PRODUCT, verdict, proof if verdict in EVIDENCED else None, 5)
        for story, (verdict, proof) in by_story.items()
    ]
)
facts_st = st.builds(
    Facts,
    hosting=st.sampled_from(["", "self-hosted", "managed", "both"]),
    licence=st.sampled_from(["", "MIT", "Apache-2.0", "BUSL-1.1", "SSPL-1.0", "proprietary"]),
)
must_st = st.builds(
    MustHaves,
    stories=st.lists(st.sampled_from(STORIES), unique=True).map(tuple),
    needs=st.lists(st.sampled_from(NEEDS), unique=True).map(tuple),
)


def verified(cell: CellIn) -> bool:
    return cell.verdict in ("full", "partial", "disputed") and cell.proof in ("probed", "community")


@given(must=must_st, cells=cells_st, facts=facts_st)
def test_a_product_meets_its_must_haves_only_with_every_story_full_and_every_fact_stated(
    must, cells, facts
):
    answer = must_answer(PRODUCT, must, cells, facts)
    by_story = {c.story_id: c for c in cells}
    stories_full = all(s in by_story and by_story[s].verdict == "full" for s in must.stories)
    facts_met = all(need_met(n, facts) is True for n in must.needs)
    assert (answer.outcome == Outcome.MEETS) == (stories_full and facts_met)
    if answer.outcome == Outcome.MEETS:
        chosen = [by_story[s] for s in must.stories]
        sure = all(verified(c) for c in chosen)
        assert answer.certainty == (Certainty.CERTAIN if sure else Certainty.LIKELY)
        assert answer.unverified == sum(1 for c in chosen if not verified(c))


@given(must=must_st, cells=cells_st, facts=facts_st)
def test_a_failure_names_every_cell_that_is_not_full_and_every_fact_it_lacks(must, cells, facts):
    answer = must_answer(PRODUCT, must, cells, facts)
    by_story = {c.story_id: c for c in cells}
    not_full = {s for s in must.stories if s in by_story and by_story[s].verdict != "full"}
    lacking = {n for n in must.needs if need_met(n, facts) is False}
    assert {c.story_id for c in answer.failing} == not_full
    assert set(answer.lacking) == lacking
    assert (answer.outcome == Outcome.FAILS) == bool(not_full or lacking)
    if answer.outcome == Outcome.FAILS:
        sure = bool(lacking) or any(verified(by_story[s]) for s in not_full)
        assert answer.certainty == (Certainty.CERTAIN if sure else Certainty.LIKELY)


@given(must=must_st, cells=cells_st, facts=facts_st)
def test_what_nobody_stated_is_never_a_pass(must, cells, facts):
    answer = must_answer(PRODUCT, must, cells, facts)
    unknown = {n for n in must.needs if need_met(n, facts) is None}
    unjudged = {s for s in must.stories if s not in {c.story_id for c in cells}}
    assert set(answer.unknown) == unknown and set(answer.unjudged) == unjudged
    if unknown or unjudged:
        assert answer.outcome != Outcome.MEETS
        if answer.outcome == Outcome.UNKNOWN:
            assert answer.certainty == Certainty.UNKNOWN


@given(must=must_st, more=must_st, cells=cells_st, facts=facts_st)
def test_adding_must_haves_never_turns_a_failure_into_a_pass(must, more, cells, facts):
    wider = MustHaves(
        tuple(dict.fromkeys(must.stories + more.stories)),
        tuple(dict.fromkeys(must.needs + more.needs)),
    )
    narrow = must_answer(PRODUCT, must, cells, facts)
    wide = must_answer(PRODUCT, wider, cells, facts)
    if narrow.outcome == Outcome.FAILS:
        assert wide.outcome == Outcome.FAILS
    if wide.outcome == Outcome.MEETS:
        assert narrow.outcome == Outcome.MEETS


@given(must=must_st, cells=cells_st, facts=facts_st, seed=st.randoms())
def test_the_order_of_the_must_haves_and_cells_changes_nothing_but_the_listing(
    must, cells, facts, seed
):
    stories, needs, shuffled = list(must.stories), list(must.needs), list(cells)
    seed.shuffle(stories), seed.shuffle(needs), seed.shuffle(shuffled)
    a = must_answer(PRODUCT, must, cells, facts)
    b = must_answer(PRODUCT, MustHaves(tuple(stories), tuple(needs)), shuffled, facts)
    assert (a.outcome, a.certainty, a.unverified) == (b.outcome, b.certainty, b.unverified)
    assert set(a.failing) == set(b.failing) and set(a.lacking) == set(b.lacking)


def test_the_facts_as_stated():
    assert need_met(NEED_SELF_HOSTED, Facts(hosting="both")) is True
    assert need_met(NEED_SELF_HOSTED, Facts(hosting="managed")) is False
    assert need_met(NEED_MANAGED, Facts(hosting="self-hosted")) is False
    assert need_met(NEED_MANAGED, Facts()) is None
    assert need_met(NEED_OPEN_SOURCE, Facts(licence="MIT")) is True
    assert need_met(NEED_OPEN_SOURCE, Facts(licence="BUSL-1.1")) is False  # source-available
    assert need_met(NEED_OPEN_SOURCE, Facts(hosting="both")) is None


def test_every_product_answers_and_only_its_own_cells_count():
    cells = [
        CellIn(1, "a", Verdict.FULL, Proof.PROBED, 9),
        CellIn(1, "b", Verdict.PARTIAL, Proof.CLAIMED, 5),
        CellIn(2, "a", Verdict.FULL, Proof.CLAIMED, 8),
    ]
    must = MustHaves((1, 2))
    a, b, c = (must_answer(p, must, cells, Facts()) for p in "abc")
    assert (a.outcome, a.certainty, a.unverified) == (Outcome.MEETS, Certainty.LIKELY, 1)
    assert (b.outcome, b.certainty, b.unjudged) == (Outcome.FAILS, Certainty.LIKELY, (2,))
    assert (c.outcome, c.unjudged) == (Outcome.UNKNOWN, (1, 2))
    only_first = must_answer("a", MustHaves((1,)), cells, Facts())
    assert (only_first.outcome, only_first.certainty) == (Outcome.MEETS, Certainty.CERTAIN)
