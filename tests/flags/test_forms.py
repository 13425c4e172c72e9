"""The two inputs of the flags app on their own (no database): a visitor's flag and a moderator's
decision, their rules and what a flag proposes."""

import pytest

from flags.forms import (
    CONTROL_MESSAGE,
    EXPLANATION_MAX,
    NOTE_MAX,
    NOTE_MISSING,
    DecisionForm,
    FlagForm,
    NoteForm,
)
from flags.models import Flag, Reason
from stories.values import CellValue, Proof, Verdict

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
PARTIAL = CellValue(Verdict.PARTIAL, Proof.COMMUNITY, 6)


def flag_form(**fields) -> FlagForm:
    return FlagForm({"reason": Reason.WRONG_VERDICT, "explanation": EXPLANATION, **fields})


def proposing(**fields) -> Flag:
    return Flag(**{"proposed_verdict": "", "proposed_quality": None, **fields})


def test_a_plain_flag_has_no_errors():
    assert flag_form().errors == {}


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"reason": "because"}, "reason"),
        ({"explanation": "too short"}, "explanation"),
        ({"explanation": " \x00" * 30}, "explanation"),  # blank once cleaned
        ({"explanation": "x" * (EXPLANATION_MAX + 1)}, "explanation"),
        ({"proposed_verdict": "great"}, "proposed_verdict"),
        ({"proposed_quality": 11}, "proposed_quality"),
        ({"proposed_quality": True}, "proposed_quality"),
        ({"proposed_verdict": Verdict.NONE, "proposed_quality": 5}, "proposed_quality"),
        ({"proposed_verdict": Verdict.NA, "proposed_quality": 3}, "proposed_quality"),
        ({"source_url": "notaurl"}, "source_url"),
        ({"source_url": "ftp://example.com/x"}, "source_url"),
        ({"source_url": "https://example.com/" + "x" * 500}, "source_url"),
        ({"email": "nope"}, "email"),
        ({"email": "a" * 250 + "@example.com"}, "email"),
    ],
)
def test_each_broken_rule_names_its_field(fields, field):
    assert set(flag_form(**fields).errors) == {field}


@pytest.mark.parametrize(
    "fields",
    [
        {"proposed_verdict": Verdict.NONE},
        {"proposed_verdict": Verdict.NONE, "proposed_quality": 0},
        {"proposed_verdict": Verdict.NA},
        {"proposed_quality": 0},
        {"proposed_quality": 10},
    ],
)
def test_a_proposal_that_can_make_a_cell_is_accepted(fields):
    assert flag_form(**fields).errors == {}


def test_a_flag_without_a_proposal_proposes_nothing():
    assert proposing().proposal(PARTIAL) is None


def test_a_proposed_verdict_is_completed_from_the_cell():
    proposal = proposing(proposed_verdict=Verdict.FULL).proposal(PARTIAL)
    assert proposal == CellValue(Verdict.FULL, Proof.COMMUNITY, 6)


def test_a_proposed_quality_keeps_the_cells_verdict():
    assert proposing(proposed_quality=2).proposal(PARTIAL) == CellValue(
        Verdict.PARTIAL, Proof.COMMUNITY, 2
    )


def test_a_proposed_none_takes_no_proof_and_quality_0():
    proposal = proposing(proposed_verdict=Verdict.NONE).proposal(PARTIAL)
    assert proposal == CellValue(Verdict.NONE, None, 0)


def test_the_stored_explanation_is_cleaned():
    form = flag_form(explanation=f"  \x1b{EXPLANATION}\r\n ")
    assert form.is_valid() and form.cleaned_data["explanation"] == EXPLANATION


def test_optional_fields_may_be_missing_or_none():
    form = FlagForm({"reason": Reason.OTHER, "explanation": EXPLANATION, "proposed_verdict": None})
    assert form.is_valid()
    data = form.cleaned_data
    assert (data["proposed_verdict"], data["proposed_quality"], data["source_url"]) == (
        "",
        None,
        "",
    )


@pytest.mark.parametrize("note", ["", "  ", "\x00\x0b", "x" * (NOTE_MAX + 1)])
def test_a_decision_needs_a_short_public_note(note):
    assert set(DecisionForm({"note": note}).errors) == {"note"}


def test_a_decision_corrects_only_the_values_sent():
    form = DecisionForm({"note": "Yes.", "verdict": Verdict.NONE, "proof": None})
    assert form.is_valid() and form.cleaned_data["correction"] == {"verdict": "none", "proof": None}


@pytest.mark.parametrize("field", ["email", "source_url"])
def test_a_one_line_field_with_control_characters_says_so(field):
    value = {"email": "a\x1bb@example.com", "source_url": "https://example.com/\x1b"}[field]
    assert flag_form(**{field: value}).errors == {field: [CONTROL_MESSAGE]}


def test_the_review_pages_blank_verdict_is_left_to_the_decision():
    """The page sends every value it shows; a blank verdict is the one offered (the flags'
    proposal, else the cell's)."""
    form = DecisionForm(
        {
            "decision": "uphold",
            "verdict": "",
            "proof": "",
            "quality": "",
            "note": "Checked.",
            "version": "1",
        }
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["correction"] == {"proof": None, "quality": None}


def test_a_moderators_empty_note_gets_the_decisions_message():
    form = NoteForm({"note": " \x1b "})
    assert not form.is_valid() and form.errors["note"] == [NOTE_MISSING]
