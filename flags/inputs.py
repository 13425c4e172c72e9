"""What people send to the flags app, with its rules written once: a visitor's flag and a
moderator's decision. The form, the API and the admin build these; ``flags.services`` takes them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator

from core.text import clean_text
from core.uris import uri_encode, validate_uri
from flags.models import Flag, Reason
from stories.values import JUDGEMENT_FIELDS, CellValue, Verdict

EXPLANATION_MIN, EXPLANATION_MAX = 20, 2000
EMAIL_MAX: int = Flag._meta.get_field("email").max_length  # type: ignore[assignment]
SOURCE_URL_MAX: int = Flag._meta.get_field("source_url").max_length  # type: ignore[assignment]
NOTE_MAX = 2000
NOTE_MISSING = "Write a public note: it is shown with the decision."
ID_MAX = 2**63 - 1  # the largest id a key holds (BigAutoField)
CONTROL_MESSAGE = "Remove the control characters from this field."
# a one-line field's name, its noun in a message, its validator and what an invalid one is told
ONE_LINE_FIELDS = (
    ("source_url", "address", validate_uri, "Enter a full http(s) address, or leave it empty."),
    ("email", "email address", EmailValidator(), "Enter a valid email address, or leave it empty."),
)


def explanation_error(text: str) -> str | None:
    """Its length as stored: less control characters and surrounding blanks."""
    length = len(clean_text(text or "").strip())
    if length < EXPLANATION_MIN:
        return (
            f"Explain what is wrong in at least {EXPLANATION_MIN} characters (you wrote {length})."
        )
    if length > EXPLANATION_MAX:
        return f"Keep the explanation under {EXPLANATION_MAX} characters (you wrote {length})."
    return None


@dataclass(frozen=True)
class FlagInput:
    """A visitor's flag on a cell; ``affiliated``: filed by the product's vendor."""

    reason: str
    explanation: str
    proposed_verdict: str = ""
    proposed_quality: int | None = None
    source_url: str = ""
    email: str = ""
    affiliated: bool = False

    @classmethod
    def from_fields(cls, data: Mapping[str, Any]) -> FlagInput:
        """From a form's or a serializer's data (optional fields missing, empty or None)."""
        return cls(
            reason=data["reason"],
            explanation=data["explanation"],
            proposed_verdict=data.get("proposed_verdict") or "",
            proposed_quality=data.get("proposed_quality"),
            source_url=(data.get("source_url") or "").strip(),
            email=data.get("email") or "",
            affiliated=bool(data.get("affiliated")),
        )

    @classmethod
    def of(cls, flag: Flag) -> FlagInput:
        return cls(**{f.name: getattr(flag, f.name) for f in fields(cls)})

    @property
    def proposes(self) -> bool:
        return bool(self.proposed_verdict) or self.proposed_quality is not None

    def proposal(self, cell: CellValue) -> CellValue | None:
        """What the flag proposes, completed from ``cell`` (a contradiction is kept, to report)."""
        given = {"verdict"} if self.proposed_verdict else set()
        if self.proposed_quality is not None:
            given.add("quality")
        if not given:
            return None
        value = CellValue(self.proposed_verdict or cell.verdict, None, self.proposed_quality)
        return value.completed_from(cell, given=given)

    def errors(self) -> dict[str, str]:
        """One message per field of the flag's own (the cell's rules are the service's)."""
        errors: dict[str, str] = {}
        if self.reason not in Reason.values:
            errors["reason"] = f"Choose a reason: {', '.join(Reason.values)}."
        if explanation := explanation_error(self.explanation):
            errors["explanation"] = explanation
        # a quality alone is judged with a verdict that takes any quality; the moderator decides
        probe = self.proposal(CellValue(self.proposed_verdict or Verdict.PARTIAL))
        for name, message in (probe.errors() if probe else {}).items():
            errors[f"proposed_{name}"] = message
        for name, noun, validate, invalid in ONE_LINE_FIELDS:
            sent = getattr(self, name)
            stored = uri_encode(sent) if name == "source_url" else sent
            limit = SOURCE_URL_MAX if name == "source_url" else EMAIL_MAX
            # one-line fields refuse control characters (tabs and line breaks too), never drop them
            if sent and (clean_text(sent) != sent or "\t" in sent or "\n" in sent):
                errors[name] = CONTROL_MESSAGE
            elif len(stored) > limit:
                errors[name] = f"Keep the {noun} under {limit} characters."
            elif sent:
                try:
                    validate(stored)
                except ValidationError:
                    errors[name] = invalid
        return errors

    def model_fields(self) -> dict[str, Any]:
        """The fields of the ``Flag`` it makes."""
        return {
            **{f.name: getattr(self, f.name) for f in fields(self)},
            "explanation": clean_text(self.explanation or "").strip(),
            "source_url": uri_encode(self.source_url),
        }


@dataclass(frozen=True)
class ModerationDecision:
    """A moderator's decision: the item's version as read, the flags read (None: all), and when
    upholding the values given (a field left out comes from the proposal or the cell) and the
    cell's version as read."""

    note: str
    item_version: int | None = None
    seen_flags: frozenset[int] | None = None
    correction: Mapping[str, Any] = field(default_factory=dict)
    cell_version: int | None = None

    def __post_init__(self) -> None:
        if unknown := set(self.correction) - set(JUDGEMENT_FIELDS):
            raise TypeError(f"A correction has only {', '.join(JUDGEMENT_FIELDS)}: {unknown}")

    @property
    def note_text(self) -> str:
        return clean_text(self.note or "").strip()

    def errors(self) -> dict[str, str]:
        note = self.note_text
        if not note:
            return {"note": NOTE_MISSING}
        if len(note) > NOTE_MAX:
            return {"note": f"Keep the note under {NOTE_MAX} characters."}
        return {}

    def corrected(self, start: CellValue) -> CellValue:
        """The moderator's values (a contradiction kept, to report), the rest from ``start``."""
        if not self.correction:
            return start
        value = CellValue(
            self.correction.get("verdict", start.verdict),
            self.correction.get("proof"),
            self.correction.get("quality"),
        )
        return value.completed_from(start, given=set(self.correction))
