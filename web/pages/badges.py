"""A judgement written once, from ``stories.values.CellValue``: its badge (``verdict``), the
matrix's short form (``matrix_badge``), a card's (``card_badge``), its words (``verdict_label``)
and the legend's marks."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from stories.values import Backing, CellValue, Proof, Verdict
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


@dataclass(frozen=True)
class _BadgeForm:
    """How one form of a judgement's badge writes each piece, as ``format_html`` strings (every
    value filled in is escaped). The badge's shape is ``render``'s alone, the same in every form:
    symbol and word, then the proof level when there is one, then the quality; ``n/a`` alone."""

    verdict: str  # symbol and word together: ``{cls}`` the verdict's CSS class, ``{text}`` them
    symbol: str  # ``{}`` the verdict's symbol
    proof: str  # a proof level's ``{name}``, ``{letter}`` or ``{meaning}``
    quality: str  # ``{}`` the quality, ``7/10`` or ``—``

    def head(self, value: CellValue) -> SafeString:
        """The verdict's symbol and word (``n/a`` alone)."""
        text = (
            format_html("{} {}", format_html(self.symbol, value.symbol), value.verdict)
            if value.applicable
            else escape(value.verdict)
        )
        return format_html(self.verdict, cls=verdict_class(value.verdict), text=text)

    def proof_of(self, proof: Proof) -> SafeString:
        return format_html(
            self.proof, name=proof.value, letter=PROOF_MARKS[proof], meaning=proof.meaning
        )

    def render(self, value: CellValue) -> SafeString:
        if not value.applicable:
            return self.head(value)
        proof = format_html(" {}", self.proof_of(Proof(value.proof))) if value.proof else ""
        quality = format_html(self.quality, value.quality_text)
        return format_html("{}{} {}", self.head(value), proof, quality)


# The badge of the story, cell and head-to-head pages and the legend: ``✓ full C 8/10``, the
# proof's name on hover of its letter.
_BADGE = _BadgeForm(
    verdict='<span class="verdict {cls}">{text}</span>',
    symbol='<span class="sym" aria-hidden="true">{}</span>',
    proof='<abbr class="proof" title="{name}">{letter}</abbr>',
    quality='<span class="q">{}</span>',
)
# The same with the proof level's name, its meaning on hover.
_BADGE_WORDS = replace(_BADGE, proof='<span class="proof" title="{meaning}">{name}</span>')
# A matrix cell's badge in short, ``<i>✓</i> full X 9/10``: its ``<td>`` carries the class.
_MATRIX_BADGE = _BadgeForm(
    verdict="{text}", symbol='<i aria-hidden="true">{}</i>', proof="{letter}", quality="{}"
)


def _value(cell: Judged) -> CellValue:
    return CellValue(cell.verdict, cell.proof or None, cell.quality)


def verdict(cell: Judged, words: bool = False) -> SafeString:
    """A cell's badge, ``✓ full C 8/10``: symbol, word, proof letter (with ``words``: the proof's
    name, its meaning on hover) and quality; ``n/a`` alone."""
    return (_BADGE_WORDS if words else _BADGE).render(_value(cell))


def verdict_label(value: CellValue) -> SafeString:
    """A judgement in words, ``partial claimed 5/10``, coloured by its verdict."""
    return format_html(
        '<span class="verdict {}">{}</span>', verdict_class(value.verdict), value.label()
    )


@functools.lru_cache(maxsize=512)
def matrix_badge(verdict: str, proof: str | None, quality: int | None) -> SafeString:
    """A matrix cell's badge: the same few dozen strings make up a whole matrix (keyed by the plain
    fields, so a cached cell costs no value object)."""
    return _MATRIX_BADGE.render(CellValue(verdict, proof, quality))


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


@functools.lru_cache(maxsize=512)
def card_badge(verdict: str, proof: str | None, quality: int | None) -> tuple[SafeString, bool]:
    """A card's badge in words (as ``{% verdict cell True %}``) and whether the verdict rests on
    evidence: a few dozen judgements make up every card of a page."""
    value = CellValue(verdict, proof or None, quality)
    return _BADGE_WORDS.render(value), value.evidenced


@functools.lru_cache(maxsize=512)
def round_badge(verdict: str, proof: str | None, quality: int | None) -> SafeString:
    """A round's badge in the head-to-head table, ``✓ full C 8/10`` (the proof's name on hover of
    its letter)."""
    return _BADGE.render(CellValue(verdict, proof or None, quality))


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


def legend_verdicts() -> list[tuple[SafeString, SafeString]]:
    """The legend's rows of verdicts: each one's mark as the badges show it, and what it means."""
    # our own constant words, written as they are (``doesn't``, not ``doesn&#x27;t``)
    return [(_BADGE.head(CellValue(v)), mark_safe(_LEGEND_VERDICTS[v])) for v in Verdict]


def legend_proofs() -> list[tuple[SafeString, str]]:
    """The legend's rows of proof levels: each one's letter as the badges show it, its name and
    what it means."""
    return [
        (format_html("{} {}", _BADGE.proof_of(p), p.value), _LEGEND_PROOFS.get(p, p.meaning))
        for p in Proof
    ]


# The matrix's compact mark of what backs a cell (``stories.values.Backing``).
BACKING_SYMBOLS = {Backing.QUOTES: "❝", Backing.RATIONALE: "¶", Backing.NONE: "∅"}


def legend_backings() -> list[tuple[str, str]]:
    """The legend's marks of what backs a cell, with their words."""
    return [(BACKING_SYMBOLS[b], str(b.label)) for b in Backing]
