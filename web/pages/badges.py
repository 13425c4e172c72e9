"""A judgement written once, from ``stories.values.CellValue``: what the badge templates
(``arena/_cell.html#badge``) and the legend read, and the matrix's short form (``matrix_badge``),
which stays in Python with the matrix's cells."""

from __future__ import annotations

import functools

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from stories.values import Backing, CellValue, Proof, Verdict
from web.pages.markup import esc
from web.pages.shapes import Judged

# The mark each proof level shows on the pages: plain capitals every font has, each a different
# letter and none that reads as a verdict (the arena files' own letters, ``Proof.letter``, use
# "X" for community, which reads as "fails", and a key glyph many fonts lack).
PROOF_MARKS = {
    Proof.PROBED: "T",
    Proof.COMMUNITY: "U",
    Proof.CLAIMED: "C",
    Proof.CONTRADICTED: "D",
    Proof.AUTH_GATED: "G",
}
# What each mark stands for, for the key above the matrix: the word its letter comes from.
PROOF_MARK_WORDS = {
    Proof.PROBED: "tested",
    Proof.COMMUNITY: "users",
    Proof.CLAIMED: "claimed",
    Proof.CONTRADICTED: "disproved",
    Proof.AUTH_GATED: "gated",
}


def proof_mark(proof: str | None) -> str:
    """A proof level's mark as the pages show it (``T``), empty for none."""
    return PROOF_MARKS[Proof(proof)] if proof else ""


def verdict_class(verdict: str) -> str:
    """CSS class of a verdict (colour only reinforces the symbol and the word)."""
    return "v-na" if verdict == Verdict.NA else f"v-{verdict}"


def verdict(cell: Judged, words: bool = False) -> SafeString:
    """A cell's badge as ``arena/_cell.html#badge`` draws it, ``✓ full C 8/10``: with ``words``
    the proof's name, its meaning on hover."""
    return _badge(cell.verdict, cell.proof or None, cell.quality, words)


@functools.lru_cache(maxsize=512)
def _badge(verdict: str, proof: str | None, quality: int | None, words: bool) -> SafeString:
    # the same few dozen badges make up a page of hundreds: each is rendered once
    value = CellValue(verdict, proof, quality)
    return render_to_string("arena/_cell.html#badge", {"v": value, "words": words})


def label(value: CellValue) -> dict[str, object]:
    """What ``arena/_cell.html#label`` draws: a judgement in words, ``partial claimed 5/10``."""
    return {"v": value}


@functools.lru_cache(maxsize=512)
def matrix_badge(verdict: str, proof: str | None, quality: int | None) -> str:
    """A matrix cell's badge in short, ``<i>✓</i> full X 9/10`` (its ``<td>`` carries the class):
    the same few dozen strings make up a whole matrix."""
    value = CellValue(verdict, proof, quality)
    if not value.applicable:
        return esc(value.verdict)
    letter = f" {PROOF_MARKS[Proof(value.proof)]}" if value.proof else ""
    return f'<i aria-hidden="true">{value.symbol}</i> {esc(value.verdict)}{letter} {value.quality_text}'


@functools.lru_cache(maxsize=512)
def matrix_words(verdict: str, proof: str | None, quality: int | None) -> str:
    """A matrix cell's judgement in words, for screen readers: ``full, probed, 9/10``, ``not
    applicable`` (the visible badge says it in marks)."""
    if verdict == Verdict.NA:
        return "not applicable"
    value = CellValue(verdict, proof or None, quality)
    return ", ".join(
        part for part in (value.verdict, value.proof or "", value.quality_text) if part
    )


# What the legend says of each verdict, and of a proof level where it says more than its meaning.
_LEGEND_VERDICTS = {
    Verdict.FULL: "clear evidence",
    Verdict.PARTIAL: "with caveats",
    Verdict.DISPUTED: "evidence conflicts",
    Verdict.NONE: "no evidence found (quality 0)",
    Verdict.NA: "question doesn't apply to this kind of product",
}
_LEGEND_PROOFS = {
    Proof.AUTH_GATED: "probe hit a live sign-in wall — verified reachable, untestable keylessly",
}
# The matrix's compact mark of what backs a cell (``stories.values.Backing``).
BACKING_SYMBOLS = {Backing.QUOTES: "❝", Backing.RATIONALE: "¶", Backing.NONE: "∅"}


def legend_verdicts() -> list[tuple[CellValue, str]]:
    """The legend's rows of verdicts: each one's value, whose mark the badge draws, and what it
    means."""
    return [(CellValue(v), _LEGEND_VERDICTS[v]) for v in Verdict]


def legend_proofs() -> list[tuple[Proof, str]]:
    """The legend's rows of proof levels and what each means."""
    return [(p, _LEGEND_PROOFS.get(p, p.meaning)) for p in Proof]


def legend_backings() -> list[tuple[str, str]]:
    """The legend's marks of what backs a cell, with their words."""
    return [(BACKING_SYMBOLS[b], str(b.label)) for b in Backing]
