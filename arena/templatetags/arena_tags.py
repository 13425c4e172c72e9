"""Display helpers for the public pages. A judgement is written here once, from
``stories.values.CellValue``: the badge (``verdict``), its short form in the matrix
(``matrix_cells``), the words of the record (``verdict_label``) and the legend's marks; also scores,
popularity figures and the product page's bar chart."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from arena.text import arena_slugify, format_figure
from stories.values import CellValue, Proof, Verdict

register = template.Library()


def verdict_class(verdict: str) -> str:
    """CSS class of a verdict (colour only reinforces the symbol and the word)."""
    return "v-na" if verdict == Verdict.NA else f"v-{verdict}"


@register.filter
def figure(value: int | None) -> str:
    """143400 → ``143.4k`` (the seed pages' way of printing popularity figures)."""
    return format_figure(value)


@register.filter
def score(value: int | None) -> str:
    """A stored score out of 100, or an em dash when there is none."""
    return "—" if value is None else f"{value}/100"


@register.filter
def get(mapping: dict | None, key: str):
    return (mapping or {}).get(key)


@dataclass(frozen=True)
class _BadgeForm:
    """How one form of a judgement's badge writes each piece, as ``format_html`` strings (every
    value filled in is escaped). The badge's shape is ``render``'s alone, the same in every form:
    symbol and word, then the proof level when there is one, then the quality; ``n/a`` alone."""

    verdict: str  # symbol and word together: ``{cls}`` the verdict's CSS class, ``{text}`` them
    symbol: str  # ``{}`` the verdict's symbol
    proof: str  # a proof level's ``{name}``, ``{letter}`` or ``{meaning}``
    quality: str  # ``{}`` the quality, ``7/10`` or ``—``

    def head(self, value: CellValue) -> str:
        """The verdict's symbol and word (``n/a`` alone)."""
        text = (
            format_html("{} {}", format_html(self.symbol, value.symbol), value.verdict)
            if value.applicable
            else escape(value.verdict)
        )
        return format_html(self.verdict, cls=verdict_class(value.verdict), text=text)

    def proof_of(self, proof: Proof) -> str:
        return format_html(self.proof, name=proof.value, letter=proof.letter, meaning=proof.meaning)

    def render(self, value: CellValue) -> str:
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


@register.simple_tag
def verdict(cell, words: bool = False) -> str:
    """A cell's badge, ``✓ full C 8/10``: symbol, word, proof letter (with ``words``: the proof's
    name, its meaning on hover) and quality; ``n/a`` alone."""
    return (_BADGE_WORDS if words else _BADGE).render(CellValue.of(cell))


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


@register.simple_tag
def legend_verdicts() -> list[tuple[str, str]]:
    """The legend's rows of verdicts: each one's mark as the badges show it, and what it means."""
    # our own constant words, written as they are (``doesn't``, not ``doesn&#x27;t``)
    return [(_BADGE.head(CellValue(v)), mark_safe(_LEGEND_VERDICTS[v])) for v in Verdict]


@register.simple_tag
def legend_proofs() -> list[tuple[str, str]]:
    """The legend's rows of proof levels: each one's letter as the badges show it, its name and
    what it means."""
    return [
        (format_html("{} {}", _BADGE.proof_of(p), p.value), _LEGEND_PROOFS.get(p, p.meaning))
        for p in Proof
    ]


@register.simple_tag
def verdict_label(value: CellValue) -> str:
    """A judgement in words, ``partial claimed 5/10``, coloured by its verdict."""
    return format_html(
        '<span class="verdict {}">{}</span>', verdict_class(value.verdict), value.label()
    )


@functools.lru_cache(maxsize=8)
def _cell_url_prefix(script_prefix: str) -> str:
    """``/cells/``: reversed once per script prefix, not once per cell."""
    return reverse("cell-detail", args=[0])[: -len("0/")]


@register.filter
def cell_url(cell) -> str:
    """The proof page of a cell, as ``{% url 'cell-detail' cell.pk %}`` but cheaper in big loops."""
    return f"{_cell_url_prefix(get_script_prefix())}{int(cell.pk)}/"


@functools.lru_cache(maxsize=512)
def _cell_inner(verdict: str, proof: str | None, quality: int | None) -> str:
    """A matrix cell's badge: the same few dozen strings make up a whole matrix (keyed by the plain
    fields, so a cached cell costs no value object)."""
    return _MATRIX_BADGE.render(CellValue(verdict, proof, quality))


@register.simple_tag
def matrix_cells(row, flag_controls: bool = False) -> str:
    """The ``<td>`` of every cell of one matrix row, each linking to its proof page and, with
    ``flag_controls``, with a small flag control (``site.js`` opens its form in place).

    Built in one pass rather than one template include per cell: the big arena has 9,000 cells."""
    prefix = _cell_url_prefix(get_script_prefix())

    labels: dict[int, str] = {}  # escaped once per product, not once per cell

    def flag(c) -> str:
        if not flag_controls:
            return ""
        label = labels.get(c.product_id)
        if label is None:
            label = labels[c.product_id] = escape(c.product.name)
        return (
            f'<a class="flag-mini" href="{prefix}{int(c.pk)}/flag/" aria-label="Flag {label}">⚑</a>'
        )

    return mark_safe(  # every interpolated value is escaped or an int
        "".join(
            f'<td class="{verdict_class(c.verdict)}"><a href="{prefix}{int(c.pk)}/">'
            f"{_cell_inner(c.verdict, c.proof, c.quality)}</a>{flag(c)}</td>"
            for c in row.cells
        )
    )


CHART_WIDTH = 480  # SVG units; the chart scales to its box, text with it
BAR_ROW = 24  # SVG units per bar
BAR_LEFT = 185  # where the bars start (labels to the left)
BAR_MAX = 250  # width of a 100/100 bar


@register.simple_tag
def bar_chart(items) -> dict:
    """Geometry of a horizontal bar chart of (thing with ``.name``, score or None) pairs, for an
    SVG drawn by the template."""
    bars = [
        {
            "label": thing.name,
            "value": value,
            "y": i * BAR_ROW,
            "mid": i * BAR_ROW + BAR_ROW // 2,
            "width": 0 if value is None else round(BAR_MAX * value / 100),
            "end": BAR_LEFT + (0 if value is None else round(BAR_MAX * value / 100)) + 6,
        }
        for i, (thing, value) in enumerate(items)
    ]
    height = len(bars) * BAR_ROW
    ticks = [{"x": BAR_LEFT + BAR_MAX * t // 100, "label": t} for t in (0, 50, 100)]
    return {
        "bars": bars,
        "height": height,
        "total": height + 20,
        "left": BAR_LEFT,
        "ticks": ticks,
        "bar_height": BAR_ROW - 9,
        "width": CHART_WIDTH,
    }


@register.filter
def aslug(name: str) -> str:
    """The site's slug of a name (a dot becomes a hyphen): the matrix's ``category`` filter value."""
    return arena_slugify(name)
