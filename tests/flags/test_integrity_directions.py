"""Upheld corrections in each direction on the bundled arena, through the moderators' service: the
recomputed integrity counts only the ones against the product's claim, and the leaderboard page,
the product page and the API say how many went in the product's favour."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.models import ProductScore
from arena.scoring.tally import Tally
from arena.selectors.inputs import arena_scoring_inputs, cell_corrections
from flags.forms import DecisionForm
from flags.services import review_item_uphold
from stories.models import Cell
from stories.values import Direction, Proof, Verdict
from tests.factories import FlagFactory

pytestmark = pytest.mark.django_db

ARENA = "/arenas/durable-execution-engines/"
PRODUCT = "hatchet"


def _cell(**judgement: object) -> Cell:
    """Hatchet's first cell (in story order) with that judgement."""
    return (
        Cell.objects.on_pages()
        .filter(product__slug=PRODUCT, story__arena__slug="durable-execution-engines", **judgement)
        .order_by("story__position")
        .first()
    )


def _uphold(cell: Cell, moderator, capture, **correction: object) -> None:
    """A flag on ``cell`` upheld with ``correction``, its recomputation run."""
    flag = FlagFactory(item__cell=cell)
    with capture(execute=True):
        review_item_uphold(
            item=flag.item,
            moderator=moderator,
            form=DecisionForm({"note": "Checked the docs.", **correction}),
        )


def _score() -> ProductScore:
    return ProductScore.objects.get(product__slug=PRODUCT)


def _expected(s: ProductScore, *, against: int, favour_credit: int) -> int | None:
    """docs/scoring.md's formula over the stored counts (the corrected cell's part given)."""
    return Tally(
        verified=s.verified,
        contradicted=s.contradicted,
        upheld=against,
        with_evidence=s.with_evidence,
        favour_credit=favour_credit,
    ).integrity


def _board_row(html: str) -> str:
    rows = (r.split("</tr>", 1)[0] for r in html.split("<tr>"))
    row = next(r for r in rows if f'/{PRODUCT}/"' in r and "integrity" in r)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row))


def _api_row() -> dict[str, object]:
    data = Client().get(f"/api{ARENA.removesuffix('/')}/").json()
    return next(r for r in data["leaderboard"] if r["product"]["slug"] == PRODUCT)


@pytest.fixture
def before(seeded_arena) -> ProductScore:
    score = _score()
    assert (score.upheld, score.upheld_in_favour) == (0, 0)
    return score


def test_a_correction_against_the_claim_lowers_integrity(
    before, moderator, django_capture_on_commit_callbacks
):
    claimed = _cell(verdict=Verdict.FULL, proof=Proof.CLAIMED)
    _uphold(claimed, moderator, django_capture_on_commit_callbacks, verdict="partial", quality=4)
    after = _score()
    assert (after.upheld, after.upheld_in_favour) == (1, 0)
    # the cell keeps its evidence (still claimed): the same V and E, one cell against
    assert (after.verified, after.with_evidence) == (before.verified, before.with_evidence)
    assert after.integrity == _expected(after, against=1, favour_credit=0) < before.integrity
    assert _api_row()["integrity"] == after.integrity
    assert _api_row()["upheld_in_favour"] == 0
    board = _board_row(Client().get(ARENA).content.decode())
    assert f"{after.integrity}/100 integrity" in board and "in its favour" not in board


def test_a_correction_in_the_products_favour_never_lowers_integrity(
    before, moderator, django_capture_on_commit_callbacks
):
    none = _cell(verdict=Verdict.NONE)
    _uphold(
        none,
        moderator,
        django_capture_on_commit_callbacks,
        verdict="full",
        proof="claimed",
        quality=8,
    )
    after = _score()
    assert (after.upheld, after.upheld_in_favour) == (0, 1)
    # it now has evidence (E + 1), unverified, and counts as holding up (+1)
    assert (after.verified, after.with_evidence) == (before.verified, before.with_evidence + 1)
    assert after.integrity == _expected(after, against=0, favour_credit=1) >= before.integrity
    # what the old rule gave: the correction counted against the product
    old_rule = Tally(
        verified=after.verified,
        contradicted=after.contradicted,
        upheld=1,
        with_evidence=after.with_evidence,
    )
    assert old_rule.integrity is not None and before.integrity is not None
    assert old_rule.integrity < before.integrity
    row = _api_row()
    assert (row["integrity"], row["upheld_in_favour"]) == (after.integrity, 1)
    board = _board_row(Client().get(ARENA).content.decode())
    assert f"{after.integrity}/100 integrity · 1 correction in its favour" in board
    page = Client().get(f"{ARENA}products/{PRODUCT}/").content.decode()
    assert f"{after.integrity}/100 integrity · 1 correction in its favour" in page


def test_a_wrong_correction_reversed_by_a_later_one_does_not_stick(
    before, moderator, django_capture_on_commit_callbacks
):
    claimed = _cell(verdict=Verdict.FULL, proof=Proof.CLAIMED)
    value = {"verdict": claimed.verdict, "proof": claimed.proof, "quality": claimed.quality}
    capture = django_capture_on_commit_callbacks
    _uphold(claimed, moderator, capture, verdict="partial", quality=4)
    assert _score().upheld == 1
    _uphold(Cell.objects.get(pk=claimed.pk), moderator, capture, **value)
    after = _score()
    assert (after.upheld, after.upheld_in_favour) == (0, 0)
    assert after.integrity == before.integrity


def test_the_loader_reads_every_cells_net_correction_in_one_query(
    before, moderator, django_capture_on_commit_callbacks, django_assert_num_queries
):
    capture = django_capture_on_commit_callbacks
    claimed = _cell(verdict=Verdict.FULL, proof=Proof.CLAIMED)
    none = _cell(verdict=Verdict.NONE)
    _uphold(claimed, moderator, capture, verdict="partial", quality=4)
    _uphold(Cell.objects.get(pk=claimed.pk), moderator, capture, verdict="none", quality=0)
    _uphold(none, moderator, capture, verdict="partial", proof="claimed", quality=5)
    arena_id = claimed.story.arena_id
    with django_assert_num_queries(4):  # stories, upheld changes, cells, products
        inputs = arena_scoring_inputs(arena_id=arena_id)
    by_pk = {(c.story_id, c.product): c.correction for c in inputs.cells}
    assert by_pk[(claimed.story_id, claimed.product_id)] == Direction.AGAINST
    assert by_pk[(none.story_id, none.product_id)] == Direction.FAVOUR
    assert sum(d is not None for d in by_pk.values()) == 2
    nets = cell_corrections(cell_ids=[claimed.pk])
    assert (nets[claimed.pk].first.verdict, nets[claimed.pk].last.verdict) == ("full", "none")
