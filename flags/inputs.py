"""What people send to the flags app, as two small values: a visitor's flag (``FlagInput``) and a
moderator's decision on a review item (``ModerationDecision``).

The HTML form, the API serializers, the admin and ``flags.services`` all pass these, so each field
is named, bounded and checked in one place. The rules on a proposed verdict and quality are the
cell rules of ``stories.values.CellValue``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator

from arena.text import clean_text
from arena.uris import uri_encode, validate_uri
from flags.models import Flag, Reason
from stories.values import JUDGEMENT_FIELDS, CellValue, Verdict

EXPLANATION_MIN, EXPLANATION_MAX = 20, 2000
EMAIL_MAX: int = Flag._meta.get_field("email").max_length  # type: ignore[assignment]
SOURCE_URL_MAX: int = Flag._meta.get_field("source_url").max_length  # type: ignore[assignment]
NOTE_MAX = 2000
NOTE_MISSING = "Write a public note: it is shown with the decision."
ID_MAX = 2**63 - 1  # the largest id a key holds (BigAutoField)
CONTROL_MESSAGE = "Remove the control characters from this field."


def has_control_characters(text: str) -> bool:
    """C0 and C1 control characters (tab and line breaks included): never part of an address or a
    URL, so one-line fields refuse them rather than drop them."""
    return clean_text(text) != text or "\t" in text or "\n" in text


def one_line_error(text: str) -> str | None:
    """The rule of a one-line field (an address, a URL): no control characters."""
    return CONTROL_MESSAGE if has_control_characters(text) else None


def explanation_text(text: str) -> str:
    """An explanation as stored and shown: as written, less control characters (never meaningful
    in a text) and surrounding blanks."""
    return clean_text(text or "").strip()


def explanation_error(text: str) -> str | None:
    """The rule of an explanation: its length, as stored."""
    length = len(explanation_text(text))
    if length < EXPLANATION_MIN:
        return (
            f"Explain what is wrong in at least {EXPLANATION_MIN} characters (you wrote {length})."
        )
    if length > EXPLANATION_MAX:
        return f"Keep the explanation under {EXPLANATION_MAX} characters (you wrote {length})."
    return None


@dataclass(frozen=True)
class _AddressRule:
    """The rule on an address a flag may give (where to check the claim, the reporter's email):
    one line, at most ``limit`` characters, and one the ``validator`` accepts."""

    noun: str
    limit: int
    validator: Callable[[str], None]
    invalid: str

    def error(self, value: str) -> str | None:
        if one_line_error(value):
            return CONTROL_MESSAGE
        if len(value) > self.limit:
            return f"Keep the {self.noun} under {self.limit} characters."
        try:
            self.validator(value)
        except ValidationError:
            return self.invalid
        return None


SOURCE_URL_RULE = _AddressRule(
    "address",
    SOURCE_URL_MAX,
    validate_uri,
    "Enter a full http(s) address, or leave it empty.",
)
EMAIL_RULE = _AddressRule(
    "email address",
    EMAIL_MAX,
    EmailValidator(),
    "Enter a valid email address, or leave it empty.",
)


@dataclass(frozen=True)
class FlagInput:
    """A visitor's flag on a cell, as sent (the cell itself travels beside it).

    ``proposed_verdict`` is ``""`` and ``proposed_quality`` None when the visitor proposes none;
    ``affiliated``: the visitor declares working for or with the product's vendor.
    """

    reason: str
    explanation: str
    proposed_verdict: str = ""
    proposed_quality: int | None = None
    source_url: str = ""
    email: str = ""
    affiliated: bool = False

    @classmethod
    def from_fields(cls, data: Mapping[str, Any]) -> FlagInput:
        """From a form's cleaned data or a serializer's validated data: optional fields may be
        missing, empty or None."""
        return cls(
            reason=data["reason"],
            explanation=data["explanation"],
            proposed_verdict=data.get("proposed_verdict") or "",
            proposed_quality=data.get("proposed_quality"),
            # stored as a URI: what it cannot hold (quotes, spaces, ...) percent-encoded
            source_url=uri_encode(data.get("source_url") or ""),
            email=data.get("email") or "",
            affiliated=bool(data.get("affiliated")),
        )

    @classmethod
    def of(cls, flag: Flag) -> FlagInput:
        """What a stored flag was sent with."""
        return cls(
            reason=flag.reason,
            explanation=flag.explanation,
            proposed_verdict=flag.proposed_verdict,
            proposed_quality=flag.proposed_quality,
            source_url=flag.source_url,
            email=flag.email,
            affiliated=flag.affiliated,
        )

    @property
    def explanation_text(self) -> str:
        return explanation_text(self.explanation)

    @property
    def proposes(self) -> bool:
        return bool(self.proposed_verdict) or self.proposed_quality is not None

    def proposal(self, cell: CellValue) -> CellValue | None:
        """What the flag proposes, the fields it leaves out completed from ``cell``; None when it
        proposes nothing. Fields it gives are kept as given, so a contradiction is reported."""
        given = set()
        if self.proposed_verdict:
            given.add("verdict")
        if self.proposed_quality is not None:
            given.add("quality")
        if not given:
            return None
        value = CellValue(self.proposed_verdict or cell.verdict, None, self.proposed_quality)
        return value.completed_from(cell, given=given)

    def errors(self) -> dict[str, str]:
        """Every rule on the flag's own fields, as one message per field (the cell's are the
        service's: it must exist and not be retired)."""
        errors: dict[str, str] = {}
        if self.reason not in Reason.values:
            errors["reason"] = f"Choose a reason: {', '.join(Reason.values)}."
        explanation = explanation_error(self.explanation)
        if explanation:
            errors["explanation"] = explanation
        # A proposal is judged by the cell rules on its own: with the verdict it names, or, for a
        # quality alone, with a verdict that takes any quality (it meets the cell's own verdict
        # only when a moderator upholds it, who then decides).
        probe = self.proposal(CellValue(self.proposed_verdict or Verdict.PARTIAL))
        if probe is not None:
            for name, message in probe.errors().items():
                errors[f"proposed_{name}"] = message
        for name, address, rule in (
            ("source_url", self.source_url, SOURCE_URL_RULE),
            ("email", self.email, EMAIL_RULE),
        ):
            wrong = rule.error(address) if address else None
            if wrong:
                errors[name] = wrong
        return errors

    def model_fields(self) -> dict[str, Any]:
        """The fields of the ``Flag`` it makes."""
        return {
            "reason": self.reason,
            "explanation": self.explanation_text,
            "proposed_verdict": self.proposed_verdict,
            "proposed_quality": self.proposed_quality,
            "source_url": self.source_url,
            "email": self.email,
            "affiliated": self.affiliated,
        }


@dataclass(frozen=True)
class ModerationDecision:
    """A moderator's decision on a review item, as sent from the admin's review page or the API.

    ``item_version``: the item's version as read (a decision on a changed item is refused);
    ``seen_flags``: the flags the decision covers, those the moderator read (None: every flag the
    item holds now). Upholding only: ``correction`` holds the values the moderator gave, of
    ``verdict``, ``proof`` and ``quality`` (None is "no proof" / "no quality"; a field left out is
    completed from the flags' proposal or the cell), and ``cell_version`` the cell's version as
    read (an edit of the cell meanwhile is not undone).
    """

    note: str
    item_version: int | None = None
    seen_flags: frozenset[int] | None = None
    correction: Mapping[str, Any] = field(default_factory=dict)
    cell_version: int | None = None

    def __post_init__(self) -> None:
        unknown = set(self.correction) - set(JUDGEMENT_FIELDS)
        if unknown:
            raise TypeError(f"A correction has only {', '.join(JUDGEMENT_FIELDS)}: {unknown}")

    @property
    def note_text(self) -> str:
        """The public note as stored: less control characters and surrounding blanks."""
        return clean_text(self.note or "").strip()

    def errors(self) -> dict[str, str]:
        """The rules on the note: the decision is public, so it says why."""
        note = self.note_text
        if not note:
            return {"note": NOTE_MISSING}
        if len(note) > NOTE_MAX:
            return {"note": f"Keep the note under {NOTE_MAX} characters."}
        return {}

    def corrected(self, start: CellValue) -> CellValue:
        """What upholding writes: the moderator's values where given (kept as given, so a
        contradiction is reported rather than rewritten), the rest completed from ``start`` (the
        flags' proposal, or the cell)."""
        if not self.correction:
            return start
        value = CellValue(
            self.correction.get("verdict", start.verdict),
            self.correction.get("proof"),
            self.correction.get("quality"),
        )
        return value.completed_from(start, given=set(self.correction))
