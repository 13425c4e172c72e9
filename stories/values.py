"""A cell's judgement (verdict, proof, quality) and every rule about it, in plain Python: the
constraints, forms, serializers, parser, scores and templates all read it from here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from core.choices import Choices


class Verdict(Choices):
    FULL = "full"
    PARTIAL = "partial"
    DISPUTED = "disputed"
    NONE = "none"
    NA = "n/a"

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]


class Proof(Choices):
    PROBED = "probed"
    COMMUNITY = "community"
    CLAIMED = "claimed"
    CONTRADICTED = "contradicted"
    AUTH_GATED = "auth-gated"

    @property
    def letter(self) -> str:
        return _PROOF_MARKS[self][0]

    @property
    def mark(self) -> str:
        return _PROOF_MARKS[self][1]

    @property
    def meaning(self) -> str:
        return _PROOF_MARKS[self][2]


_SYMBOLS = {
    Verdict.FULL: "✓",
    Verdict.PARTIAL: "~",
    Verdict.DISPUTED: "!",
    Verdict.NONE: "—",
    Verdict.NA: "",
}
# each proof's file letter, page mark (a plain capital; a file's "X" reads as fails), meaning
_PROOF_MARKS = {
    Proof.PROBED: ("T", "T", "tested by us"),
    Proof.COMMUNITY: ("X", "U", "users back it"),
    Proof.CLAIMED: ("C", "C", "vendor claim only"),
    Proof.CONTRADICTED: ("D", "D", "evidence disagrees"),
    Proof.AUTH_GATED: ("⚿", "G", "probe hit a sign-in wall"),
}
_BY_LETTER = {proof.letter: proof for proof in Proof}

EVIDENCED = frozenset({Verdict.FULL, Verdict.PARTIAL, Verdict.DISPUTED})
QUALITY_MAX = 10

# one judgement: a stale edit of any of them conflicts with a change of any of them
JUDGEMENT_FIELDS = ("verdict", "proof", "quality")


class CellValueError(ValueError):
    """Text that is not a cell value."""


_QUALITY_RE = re.compile(r"([0-9]+)/10")
_MARK_RE = re.compile(r"([a-z/]+)(\S?)\s+(\S+)")


def parse_quality(text: str) -> int:
    """``7/10`` → 7."""
    if not (m := _QUALITY_RE.fullmatch(text.strip())):
        raise CellValueError(f"quality {text.strip()[:20]!r} is not of the form N/10")
    digits = m.group(1).lstrip("0") or "0"
    if len(digits) > 2 or int(digits) > QUALITY_MAX:
        shown = digits if len(digits) <= 20 else digits[:20] + "…"
        raise CellValueError(f"quality {shown}/10 is outside 0–10")
    return int(digits)


@dataclass(frozen=True)
class CellValue:
    """One judgement; building one checks nothing (``errors()`` names every broken rule)."""

    verdict: str
    proof: str | None = None
    quality: int | None = None

    def __post_init__(self) -> None:
        # known words become the enum members; unknown ones stay as given, for errors() to name
        if self.verdict in Verdict.values:
            object.__setattr__(self, "verdict", Verdict(self.verdict))
        if self.proof in Proof.values:
            object.__setattr__(self, "proof", Proof(self.proof))

    @classmethod
    def of(cls, obj: object, prefix: str = "") -> CellValue:
        """The judgement of a cell, or of a record's ``old_``/``new_`` side."""
        verdict, proof, quality = (getattr(obj, f"{prefix}{name}") for name in JUDGEMENT_FIELDS)
        return cls(verdict, proof or None, quality)

    def fields(self, prefix: str = "") -> dict[str, Any]:
        return {f"{prefix}{n}": getattr(self, n) for n in JUDGEMENT_FIELDS}

    @classmethod
    def parse_mark(cls, text: str) -> CellValue:
        """The matrix's short form: ``fullX 9/10``, ``none 0/10``, ``n/a``."""
        raw = text.strip()
        if raw == Verdict.NA:
            return cls(Verdict.NA)
        if not (m := _MARK_RE.fullmatch(raw)):
            raise CellValueError(f"cannot read matrix cell {raw[:60]!r}")
        word, letter, quality_text = m.groups()
        if word not in Verdict.values:
            raise CellValueError(f"unknown verdict {word[:20]!r} in cell {raw[:60]!r}")
        proof = _BY_LETTER.get(letter)
        if letter and proof is None:
            raise CellValueError(f"unknown proof letter {letter!r} in cell {raw[:60]!r}")
        if not letter and word in EVIDENCED:
            raise CellValueError(f"cell {raw[:60]!r} has no proof letter")
        return cls(word, proof, parse_quality(quality_text)).check()

    def errors(self) -> dict[str, str]:
        """Every broken rule, one message per field."""
        errors: dict[str, str] = {}
        verdict, proof, quality = self.verdict, self.proof, self.quality
        if verdict not in Verdict.values:
            errors["verdict"] = f"Unknown verdict {verdict!r}; one of {', '.join(Verdict.values)}."
            return errors
        if proof is not None and proof not in Proof.values:
            errors["proof"] = f"Unknown proof {proof!r}; one of {', '.join(Proof.values)}."
        if verdict == Verdict.NA:
            if quality is not None:
                errors["quality"] = "An n/a cell has no quality."
        elif quality is None:
            errors["quality"] = f"A {verdict} cell needs a quality from 0 to 10."
        elif type(quality) is not int or not 0 <= quality <= QUALITY_MAX:  # (a bool is no number)
            errors["quality"] = "Quality is a whole number from 0 to 10."
        elif verdict == Verdict.NONE and quality != 0:
            errors["quality"] = "A none cell (no evidence found) has quality 0."
        if verdict not in EVIDENCED and proof:
            errors["proof"] = f"A {verdict} cell has no proof level."
        if verdict in EVIDENCED and not proof and "proof" not in errors:
            errors["proof"] = f"A {verdict} cell needs a proof level."
        return errors

    def check(self) -> CellValue:
        if errors := self.errors():
            raise CellValueError(" ".join(errors.values()))
        return self

    @property
    def applicable(self) -> bool:
        return self.verdict != Verdict.NA

    @property
    def evidenced(self) -> bool:
        return self.verdict in EVIDENCED

    @property
    def symbol(self) -> str:
        return _SYMBOLS.get(self.verdict, "")  # type: ignore[call-overload]

    @property
    def proof_letter(self) -> str:
        return Proof(self.proof).letter if self.proof in Proof.values else ""

    @property
    def quality_text(self) -> str:
        return "—" if self.quality is None else f"{self.quality}/10"

    def label(self) -> str:
        """``partial claimed 5/10``."""
        quality = "" if self.quality is None else f"{self.quality}/10"
        return " ".join(part for part in (self.verdict, self.proof or "", quality) if part)

    __str__ = label

    def completed_from(self, cell: CellValue, *, given: set[str]) -> CellValue:
        """Fill the fields not in ``given`` from ``cell`` so the result can be valid; given ones are
        kept, so a contradiction is reported, never rewritten."""
        verdict = self.verdict if "verdict" in given else cell.verdict
        proof, quality = self.proof, self.quality
        if "proof" not in given:
            kept = cell.proof if cell.verdict in EVIDENCED and cell.proof else Proof.CLAIMED
            proof = kept if verdict in EVIDENCED else None
        if "quality" not in given and verdict == Verdict.NA:
            quality = None
        elif "quality" not in given:
            quality = 0 if verdict == Verdict.NONE else cell.quality or 0
        return CellValue(verdict, proof, quality)


@dataclass(frozen=True)
class Quote:
    """A quote of a cell's evidence, as an import, an editor or a moderator gives it."""

    source: str
    quote: str
    url: str = ""
    checked_on: date | None = None  # None: today


class Backing(Choices):
    """What backs a cell's verdict on the pages (docs/scoring.md)."""

    QUOTES = "quotes"
    RATIONALE = "rationale"
    NONE = "none"

    @property
    def published(self) -> bool:
        return self is not Backing.NONE

    def describe(self, quotes: int | None = None) -> str:
        """``3 quotes with sources``; without a count, ``quotes with sources``."""
        if self is Backing.QUOTES:
            count = "" if quotes is None else f"{quotes} "
            return f"{count}quote{'' if quotes == 1 else 's'} with sources"
        return "a rationale only" if self is Backing.RATIONALE else "no published evidence"

    label = property(describe)  # ``quotes with sources``


# the order every rule that compares two judgements reads; n/a has no place in it
VERDICT_ORDER = {Verdict.FULL: 3, Verdict.PARTIAL: 2, Verdict.DISPUTED: 1, Verdict.NONE: 0}


class Direction(StrEnum):
    """Which way an upheld correction went: lowered, raised, or neither (or to or from n/a)."""

    AGAINST = "against"
    FAVOUR = "favour"
    NEUTRAL = "neutral"

    @property
    def label(self) -> str:
        return {
            Direction.AGAINST: "against the product's claim",
            Direction.FAVOUR: "in the product's favour",
            Direction.NEUTRAL: "verdict and quality unchanged",
        }[self]


def correction_direction(
    old_verdict: str, old_quality: int | None, new_verdict: str, new_quality: int | None
) -> Direction:
    """By ``VERDICT_ORDER``, then quality; to or from n/a is neutral."""
    old = (VERDICT_ORDER.get(Verdict(old_verdict)), old_quality or 0)
    new = (VERDICT_ORDER.get(Verdict(new_verdict)), new_quality or 0)
    if None in (old[0], new[0]) or old == new:
        return Direction.NEUTRAL
    return Direction.AGAINST if new < old else Direction.FAVOUR
