"""What makes a cell's judgement valid, in one place: the verdict, its proof level and its quality.

Forms, the API, moderation and the import all validate through ``CellValues.errors``; the database
holds the same rules as constraints (``stories.models.Cell.Meta``). No ORM in here.
"""

from __future__ import annotations

from dataclasses import dataclass

from stories.models import EVIDENCED, Proof, Verdict

# The fields that together make a cell's judgement: a stale edit of any of them conflicts with a
# change of any of them (a quality only means something with its verdict).
JUDGEMENT_FIELDS = ("verdict", "proof", "quality")


@dataclass(frozen=True)
class CellValues:
    verdict: str
    proof: str | None
    quality: int | None

    @classmethod
    def of(cls, cell) -> CellValues:
        return cls(cell.verdict, cell.proof or None, cell.quality)

    def errors(self) -> dict[str, str]:
        """Every broken rule, as one message per field (empty when the values make a valid cell)."""
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
        elif isinstance(quality, bool) or not isinstance(quality, int) or not 0 <= quality <= 10:
            errors["quality"] = "Quality is a whole number from 0 to 10."
        elif verdict == Verdict.NONE and quality != 0:
            errors["quality"] = "A none cell (no evidence found) has quality 0."
        if verdict in (Verdict.NONE, Verdict.NA) and proof:
            errors["proof"] = f"A {verdict} cell has no proof level."
        if verdict in EVIDENCED and not proof and "proof" not in errors:
            errors["proof"] = f"A {verdict} cell needs a proof level."
        return errors

    def label(self) -> str:
        """``partial claimed 5/10``: how the queue, the record and messages name a judgement."""
        quality = "" if self.quality is None else f"{self.quality}/10"
        return " ".join(part for part in (self.verdict, self.proof or "", quality) if part)

    def completed_from(self, cell: CellValues, *, given: set[str]) -> CellValues:
        """Fill the fields a caller did not give (not in ``given``) so the result can be valid:
        ``n/a`` and ``none`` take no proof (and ``none`` quality 0, ``n/a`` no quality); an evidenced
        verdict keeps the cell's proof (``claimed`` when it had none) and quality (0 when none).
        Given fields are kept as they are, so a contradiction is reported, never rewritten."""
        verdict = self.verdict if "verdict" in given else cell.verdict
        proof, quality = self.proof, self.quality
        if "proof" not in given:
            if verdict in (Verdict.NONE, Verdict.NA):
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
        return CellValues(verdict, proof, quality)


def cell_check_values(*, verdict: str, proof: str | None, quality: int | None) -> dict[str, str]:
    """The cell invariants as one message per field (``CellValues(...).errors()``)."""
    return CellValues(verdict, proof, quality).errors()


@dataclass(frozen=True)
class EditOutcome:
    """What a possibly stale edit may write: ``write`` (field → new value), or ``conflicts`` (field →
    (what the editor read, what it is now, what the editor wants)) when someone else changed the same
    thing meanwhile."""

    write: dict
    conflicts: dict


def merge_edit(*, base: dict | None, current: dict, changes: dict, units=()) -> EditOutcome:
    """Merge a stale edit into ``current``. ``base`` holds the values the editor read (None when
    unknown: then anything may have moved); ``changes`` the fields the editor changed. A field the
    editor changed conflicts when it also moved meanwhile; the fields of one of ``units`` conflict
    together (a cell's verdict, proof and quality are one judgement). Fields the editor did not
    change are never written, so nobody's work is silently put back."""
    changes = {f: v for f, v in changes.items() if current.get(f) != v}
    if base is None:
        moved = set(current)
    else:
        moved = {f for f in current if f in base and base[f] != current[f]}
    touched = set(changes)
    for unit in units:
        if touched & set(unit) and moved & set(unit):
            touched |= set(unit)
            moved |= set(unit)
    conflicts = {
        f: (None if base is None else base.get(f), current.get(f), changes.get(f, current.get(f)))
        for f in current
        if f in touched & moved
    }
    return EditOutcome(write={} if conflicts else changes, conflicts=conflicts)
