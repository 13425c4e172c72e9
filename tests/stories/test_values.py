"""The cell value: one rule of a valid judgement, read and written the way the pages do."""

import pytest
from django.db import IntegrityError, transaction
from django.utils.timezone import now
from hypothesis import given
from hypothesis import strategies as st

from ops.generate import arena_generate
from stories.models import Cell, CellChange
from stories.values import CellValue, CellValueError, Proof, Verdict, parse_quality

values = st.builds(
    CellValue,
    verdict=st.sampled_from(list(Verdict)),
    proof=st.none() | st.sampled_from(list(Proof)),
    quality=st.none() | st.integers(min_value=-2, max_value=12),
)


@given(values)
def test_every_valid_value_reads_back_from_its_matrix_mark(value):
    if value.errors():
        return
    mark = (
        "n/a" if not value.applicable else f"{value.verdict}{value.proof_letter} {value.quality}/10"
    )
    assert CellValue.parse_mark(mark) == value


@given(values)
def test_a_value_is_valid_exactly_when_check_accepts_it(value):
    if value.errors():
        with pytest.raises(CellValueError):
            value.check()
    else:
        assert value.check() is value


@pytest.mark.parametrize(
    "mark,value",
    [
        ("fullX 9/10", CellValue(Verdict.FULL, Proof.COMMUNITY, 9)),
        ("partial⚿ 6/10", CellValue(Verdict.PARTIAL, Proof.AUTH_GATED, 6)),
        ("none 0/10", CellValue(Verdict.NONE, None, 0)),
        ("n/a", CellValue(Verdict.NA)),
    ],
)
def test_the_pages_marks_read_as_values(mark, value):
    assert CellValue.parse_mark(mark) == value


@pytest.mark.parametrize(
    "mark,message",
    [
        ("none 3/10", "has quality 0"),
        ("noneC 0/10", "has no proof"),
        ("full 9/10", "no proof letter"),
        ("fullQ 9/10", "unknown proof letter"),
        ("great 9/10", "unknown verdict"),
        ("fullX 11/10", "outside 0–10"),
        ("fullX nine", "not of the form N/10"),
    ],
)
def test_a_broken_mark_says_what_is_wrong(mark, message):
    with pytest.raises(CellValueError, match=message):
        CellValue.parse_mark(mark)


def test_labels_and_marks_are_written_once():
    value = CellValue(Verdict.PARTIAL, Proof.CLAIMED, 5)
    assert (value.label(), value.symbol, value.proof_letter) == (
        "partial claimed 5/10",
        "~",
        "C",
    )
    assert CellValue(Verdict.NA).label() == "n/a" and CellValue(Verdict.NA).quality_text == "—"


def test_a_quality_may_have_leading_zeros_but_not_exceed_ten():
    assert parse_quality("07/10") == 7
    with pytest.raises(CellValueError, match="9" * 20 + "…"):
        parse_quality("9" * 30 + "/10")


def test_an_omitted_correction_is_completed_to_a_valid_value():
    cell = CellValue(Verdict.FULL, Proof.PROBED, 9)
    assert CellValue(Verdict.NONE).completed_from(cell, given={"verdict"}) == CellValue(
        Verdict.NONE, None, 0
    )
    assert CellValue(Verdict.PARTIAL).completed_from(cell, given={"verdict"}) == CellValue(
        Verdict.PARTIAL, Proof.PROBED, 9
    )


@pytest.mark.django_db
def test_the_database_accepts_exactly_the_values_the_rule_accepts():
    """The constraints are built from the same rule (``stories.models.judgement_constraints``): every
    combination the rule refuses the database refuses too, and the other way round."""
    arena_generate(slug="tiny", products=1, stories=1)
    cell = Cell.objects.get()
    for verdict in Verdict:
        for proof in [None, *Proof]:
            for quality in [None, *range(12)]:
                value = CellValue(verdict, proof, quality)
                try:
                    with transaction.atomic():
                        Cell.objects.filter(pk=cell.pk).update(
                            verdict=verdict, proof=proof, quality=quality
                        )
                    stored = True
                except IntegrityError:
                    stored = False
                assert stored == (not value.errors()), value


@pytest.mark.django_db
@pytest.mark.parametrize("side", ["old", "new"])
def test_the_record_of_a_change_holds_only_judgements_a_cell_could_hold(side):
    arena_generate(slug="tiny", products=1, stories=1)
    cell = Cell.objects.get()
    valid = {"verdict": Verdict.FULL, "proof": Proof.PROBED, "quality": 9}
    broken = {"verdict": Verdict.NONE, "proof": Proof.PROBED, "quality": 3}
    values = {f"old_{k}": v for k, v in valid.items()} | {f"new_{k}": v for k, v in valid.items()}
    values |= {f"{side}_{k}": v for k, v in broken.items()}
    with pytest.raises(IntegrityError), transaction.atomic():
        CellChange.objects.create(cell=cell, kind=CellChange.Kind.ADMIN, changed_at=now(), **values)
    assert not CellChange.objects.exists()
