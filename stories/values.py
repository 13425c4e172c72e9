"""A cell's judgement as one value: the verdict, its proof level and its quality, with every rule
about them, how the pages write them and how to read them back.

This is the one place for those rules. The database constraints (``Cell.Meta``), admin forms, API
serializers, moderation, the page parser, the generator, the scoring module and the templates all
use ``Verdict``, ``Proof`` and ``CellValue`` from here (the constraints are built from the same rules,
``stories.models.judgement_constraints``). Plain Python, nothing of Django: the enums give Django's
fields their ``choices`` in the shape Django reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from core.choices import Choices


class Verdict(Choices):
    FULL = "full"
    PARTIAL = "partial"
    DISPUTED = "disputed"
    NONE = "none"
    NA = "n/a"

    @property
    def symbol(self) -> str:
        """``✓ ~ ! —`` as the pages mark a verdict; ``n/a`` has none."""
        return _SYMBOLS[self]

    @property
    def evidenced(self) -> bool:
        """full, partial and disputed rest on evidence and carry a proof level."""
        return self in EVIDENCED

    @property
    def applicable(self) -> bool:
        return self is not Verdict.NA

    @classmethod
    def from_symbol(cls, symbol: str) -> Verdict | None:
        return _BY_SYMBOL.get(symbol)


class Proof(Choices):
    PROBED = "probed"
    COMMUNITY = "community"
    CLAIMED = "claimed"
    CONTRADICTED = "contradicted"
    AUTH_GATED = "auth-gated"

    @property
    def letter(self) -> str:
        """The one-letter mark the matrix uses (``T X C D ⚿``)."""
        return _LETTERS[self]

    @property
    def meaning(self) -> str:
        """What the level means, in the words the pages' legend uses."""
        return _MEANINGS[self]

    @classmethod
    def from_letter(cls, letter: str) -> Proof | None:
        return _BY_LETTER.get(letter)


_SYMBOLS = {
    Verdict.FULL: "✓",
    Verdict.PARTIAL: "~",
    Verdict.DISPUTED: "!",
    Verdict.NONE: "—",
    Verdict.NA: "",
}
_BY_SYMBOL = {symbol: verdict for verdict, symbol in _SYMBOLS.items() if symbol}
_LETTERS = {
    Proof.PROBED: "T",
    Proof.COMMUNITY: "X",
    Proof.CLAIMED: "C",
    Proof.CONTRADICTED: "D",
    Proof.AUTH_GATED: "⚿",
}
_BY_LETTER = {letter: proof for proof, letter in _LETTERS.items()}
_MEANINGS = {
    Proof.PROBED: "tested by us",
    Proof.COMMUNITY: "users back it",
    Proof.CLAIMED: "vendor claim only",
    Proof.CONTRADICTED: "evidence disagrees",
    Proof.AUTH_GATED: "probe hit a sign-in wall",
}

_VERDICT_OF: dict[object, Verdict] = {v.value: v for v in Verdict}
_PROOF_OF: dict[object, Proof] = {p.value: p for p in Proof}

EVIDENCED = frozenset({Verdict.FULL, Verdict.PARTIAL, Verdict.DISPUTED})
NO_PROOF = frozenset({Verdict.NONE, Verdict.NA})
QUALITY_MAX = 10

# The fields that together make a cell's judgement: a stale edit of any of them conflicts with a
# change of any of them (a quality only means something with its verdict).
JUDGEMENT_FIELDS = ("verdict", "proof", "quality")


class CellValueError(ValueError):
    """Text that is not a cell value; the message says what is wrong, for the reader of a page."""


class _HasJudgement(Protocol):
    verdict: str
    proof: str | None
    quality: int | None


_QUALITY_RE = re.compile(r"([0-9]+)/10")
_MARK_RE = re.compile(r"([a-z/]+)(\S?)\s+(\S+)")


def parse_quality(text: str) -> int:
    """``7/10`` → 7 (leading zeros allowed, nothing above 10)."""
    m = _QUALITY_RE.fullmatch(text.strip())
    if not m:
        raise CellValueError(f"quality {text.strip()[:20]!r} is not of the form N/10")
    digits = m.group(1).lstrip("0") or "0"
    if len(digits) > 2 or int(digits) > QUALITY_MAX:
        shown = digits if len(digits) <= 20 else digits[:20] + "…"
        raise CellValueError(f"quality {shown}/10 is outside 0–10")
    return int(digits)


@dataclass(frozen=True)
class CellValue:
    """One judgement. Building one checks nothing (a form may hold a broken one to report it):
    ``errors()`` names every broken rule, ``parse_mark`` reads only valid ones."""

    verdict: str
    proof: str | None = None
    quality: int | None = None

    def __post_init__(self) -> None:
        # known words become the enum members (equal to their strings); unknown ones stay as given,
        # for errors() to name
        # (dict look-ups: the matrix builds one value per cell, 9,000 on a big arena)
        verdict = _VERDICT_OF.get(self.verdict)
        if verdict is not None:
            object.__setattr__(self, "verdict", verdict)
        proof = _PROOF_OF.get(self.proof) if self.proof is not None else None
        if proof is not None:
            object.__setattr__(self, "proof", proof)

    # ------------------------------------------------------------ making one

    @classmethod
    def of(cls, obj: _HasJudgement) -> CellValue:
        """The judgement of a cell (or anything with ``verdict``, ``proof`` and ``quality``)."""
        return cls(obj.verdict, obj.proof or None, obj.quality)

    @classmethod
    def from_fields(cls, data: Mapping[str, Any], prefix: str = "") -> CellValue:
        """From ``{prefix}verdict`` … keys: a form's cleaned data, a record's ``old_``/``new_``."""
        return cls(
            data[f"{prefix}verdict"],
            data.get(f"{prefix}proof") or None,
            data.get(f"{prefix}quality"),
        )

    def fields(self, prefix: str = "") -> dict[str, Any]:
        """``{prefix}verdict`` … as a row stores them (``from_fields`` reads them back)."""
        return {
            f"{prefix}verdict": self.verdict,
            f"{prefix}proof": self.proof,
            f"{prefix}quality": self.quality,
        }

    @classmethod
    def parse_mark(cls, text: str) -> CellValue:
        """The matrix's short form: ``fullX 9/10``, ``partial⚿ 6/10``, ``none 0/10``, ``n/a``."""
        raw = text.strip()
        if raw == Verdict.NA:
            return cls(Verdict.NA)
        m = _MARK_RE.fullmatch(raw)
        if not m:
            raise CellValueError(f"cannot read matrix cell {raw[:60]!r}")
        word, letter, quality_text = m.groups()
        if word not in Verdict.values:
            raise CellValueError(f"unknown verdict {word[:20]!r} in cell {raw[:60]!r}")
        verdict = Verdict(word)
        quality = parse_quality(quality_text)
        if letter and not verdict.evidenced:
            raise CellValueError(f"a '{verdict.value}' cell has no proof, got {letter!r}")
        proof = None
        if verdict.evidenced:
            if not letter:
                raise CellValueError(f"cell {raw[:60]!r} has no proof letter")
            proof = Proof.from_letter(letter)
            if proof is None:
                raise CellValueError(f"unknown proof letter {letter!r} in cell {raw[:60]!r}")
        value = cls(verdict, proof, quality)
        value.check()
        return value

    # ------------------------------------------------------------ rules

    def errors(self) -> dict[str, str]:
        """Every broken rule, as one message per field (empty when the values make a valid cell)."""
        errors: dict[str, str] = {}
        verdict, proof, quality = self.verdict, self.proof, self.quality
        if verdict not in _VERDICT_OF:
            errors["verdict"] = f"Unknown verdict {verdict!r}; one of {', '.join(Verdict.values)}."
            return errors
        if proof is not None and proof not in _PROOF_OF:
            errors["proof"] = f"Unknown proof {proof!r}; one of {', '.join(Proof.values)}."
        if verdict == Verdict.NA:
            if quality is not None:
                errors["quality"] = "An n/a cell has no quality."
        elif quality is None:
            errors["quality"] = f"A {verdict} cell needs a quality from 0 to 10."
        elif (
            isinstance(quality, bool)
            or not isinstance(quality, int)
            or not 0 <= quality <= QUALITY_MAX
        ):
            errors["quality"] = "Quality is a whole number from 0 to 10."
        elif verdict == Verdict.NONE and quality != 0:
            errors["quality"] = "A none cell (no evidence found) has quality 0."
        if verdict in NO_PROOF and proof:
            errors["proof"] = f"A {verdict} cell has no proof level."
        if verdict in EVIDENCED and not proof and "proof" not in errors:
            errors["proof"] = f"A {verdict} cell needs a proof level."
        return errors

    def check(self) -> CellValue:
        """The value itself when valid; else ``CellValueError`` with every broken rule."""
        errors = self.errors()
        if errors:
            raise CellValueError(" ".join(errors.values()))
        return self

    @property
    def applicable(self) -> bool:
        return self.verdict != Verdict.NA

    @property
    def evidenced(self) -> bool:
        return self.verdict in EVIDENCED

    # ------------------------------------------------------------ display

    @property
    def symbol(self) -> str:
        return _SYMBOLS.get(self.verdict, "")  # type: ignore[call-overload]

    @property
    def proof_letter(self) -> str:
        return _LETTERS.get(self.proof, "") if self.proof else ""  # type: ignore[call-overload]

    @property
    def quality_text(self) -> str:
        """``7/10``, or ``—`` when the cell has no quality (n/a)."""
        return "—" if self.quality is None else f"{self.quality}/10"

    def label(self) -> str:
        """``partial claimed 5/10``: how the queue, the record and messages name a judgement."""
        quality = "" if self.quality is None else f"{self.quality}/10"
        return " ".join(part for part in (self.verdict, self.proof or "", quality) if part)

    def mark(self) -> str:
        """The matrix's short form, read back by ``parse_mark``: ``fullX 9/10``, ``n/a``."""
        if self.verdict == Verdict.NA:
            return Verdict.NA.value
        return f"{self.verdict}{self.proof_letter} {self.quality}/10"

    def __str__(self) -> str:
        return self.label()

    # ------------------------------------------------------------ corrections

    def completed_from(self, cell: CellValue, *, given: set[str]) -> CellValue:
        """Fill the fields a caller did not give (not in ``given``) so the result can be valid:
        ``n/a`` and ``none`` take no proof (and ``none`` quality 0, ``n/a`` no quality); an evidenced
        verdict keeps the cell's proof (``claimed`` when it had none) and quality (0 when none).
        Given fields are kept as they are, so a contradiction is reported, never rewritten."""
        verdict = self.verdict if "verdict" in given else cell.verdict
        proof, quality = self.proof, self.quality
        if "proof" not in given:
            if verdict in NO_PROOF:
                proof = None
            else:
                proof = cell.proof if cell.verdict in EVIDENCED and cell.proof else Proof.CLAIMED
        if "quality" not in given:
            if verdict == Verdict.NA:
                quality = None
            elif verdict == Verdict.NONE:
                quality = 0
            else:
                quality = cell.quality if cell.quality is not None else 0
        return CellValue(verdict, proof, quality)


class Backing(Choices):
    """What backs a cell's verdict on the pages, in the words every surface uses: quotes (with
    their sources), a rationale only, or nothing published (the verdict alone, as the arena page
    gave it). A cell "has published evidence" unless it is ``NONE`` (docs/scoring.md)."""

    QUOTES = "quotes"
    RATIONALE = "rationale"
    NONE = "none"

    @property
    def label(self) -> str:
        return _BACKING_LABELS[self]

    @property
    def published(self) -> bool:
        return self is not Backing.NONE

    def describe(self, quotes: int = 0) -> str:
        """``3 quotes with sources``, ``a rationale only``, ``no published evidence``."""
        if self is Backing.QUOTES:
            return f"{quotes} quote{'' if quotes == 1 else 's'} with sources"
        return self.label


_BACKING_LABELS = {
    Backing.QUOTES: "quotes with sources",
    Backing.RATIONALE: "a rationale only",
    Backing.NONE: "no published evidence",
}


def backing_of(*, published: bool, rationale: str, quotes: int) -> Backing:
    """The one rule of what backs a cell: nothing unless a page published its detail
    (``Cell.detail_published``); then its quotes when it has any, else its rationale when it is
    not blank. ``CellQuerySet.with_backing`` is the same rule in the database."""
    if not published:
        return Backing.NONE
    if quotes:
        return Backing.QUOTES
    if rationale.strip():
        return Backing.RATIONALE
    return Backing.NONE


# The order of verdicts, the one every rule that compares two judgements reads: a head-to-head
# round, a story's strength, the direction of a correction; n/a has no place in it.
VERDICT_ORDER = {Verdict.FULL: 3, Verdict.PARTIAL: 2, Verdict.DISPUTED: 1, Verdict.NONE: 0}


class Direction(StrEnum):
    """Which way an upheld correction went: against the product's claim (the page had a verdict or
    a quality the product's own material overstated, and the correction lowered it), in the
    product's favour (the correction raised it), or neither (the judgement stayed, or the story's
    applicability changed)."""

    AGAINST = "against"  # lowered: the product's claim did not hold up
    FAVOUR = "favour"  # raised: the page had understated the product
    NEUTRAL = "neutral"  # same verdict and quality, or to or from n/a

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    Direction.AGAINST: "against the product's claim",
    Direction.FAVOUR: "in the product's favour",
    Direction.NEUTRAL: "verdict and quality unchanged",
}


def _strength(verdict: str, quality: int | None) -> tuple[int, int] | None:
    rank = VERDICT_ORDER.get(Verdict(verdict))
    return None if rank is None else (rank, quality or 0)


def correction_direction(
    old_verdict: str, old_quality: int | None, new_verdict: str, new_quality: int | None
) -> Direction:
    """The direction of a correction from one judgement to another, in the order rounds are won
    by (full > partial > disputed > none, then quality). A change to or from n/a says the story
    does not (or does) apply, not that a claim was over- or understated: neutral."""
    old, new = _strength(old_verdict, old_quality), _strength(new_verdict, new_quality)
    if old is None or new is None or old == new:
        return Direction.NEUTRAL
    return Direction.AGAINST if new < old else Direction.FAVOUR
