"""Display helpers for the public pages. A judgement is written here once, from
``stories.values.CellValue``: the badge (``verdict``), its short form in the matrix
(``matrix_cells``), the words of the record (``verdict_label``) and the legend's marks; also scores,
popularity figures and the product page's bar chart."""

from __future__ import annotations

import functools
import html
import json
from dataclasses import dataclass, replace
from urllib.parse import quote

from django import template
from django.conf import settings
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.html import conditional_escape, escape, format_html
from django.utils.http import urlencode
from django.utils.safestring import mark_safe

from arena import scoring
from arena.text import arena_slugify, format_figure
from stories import freshness
from stories.values import CellValue, Proof, Verdict

register = template.Library()

# Django's ``escape`` (the same output) checks for lazy strings on each call and marks its result
# safe; the tags below build their markup with this one and mark the whole of it safe once.
_esc = html.escape


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


@functools.lru_cache(maxsize=256)
def _url_prefix(script_prefix: str, name: str, *args: str) -> str:
    """The URL of ``name`` with ``args`` and one last argument still to append (``/cells/``,
    ``/arenas/<slug>/stories/``): reversed once per script prefix and arguments, not per link."""
    return reverse(name, args=[*args, "0"])[: -len("0/")]


def _prefix(name: str, *args: str) -> str:
    return _url_prefix(get_script_prefix(), name, *args)


@register.filter
def cell_url(cell) -> str:
    """The proof page of a cell, as ``{% url 'cell-detail' cell.pk %}`` but cheaper in big loops."""
    return f"{_prefix('cell-detail')}{int(cell.pk)}/"


@register.simple_tag
def product_url(arena: str, product: str) -> str:
    """``{% url 'product-detail' arena product %}`` (two slugs), without a reverse per link."""
    return f"{_prefix('product-detail', arena)}{product}/"


@register.simple_tag
def story_url(arena: str, story: int) -> str:
    """``{% url 'story-detail' arena story %}``, without a reverse per link."""
    return f"{_prefix('story-detail', arena)}{int(story)}/"


@register.simple_tag
def head_to_head_url(arena: str, a: str, b: str) -> str:
    """``{% url 'head-to-head' arena a b %}`` (three slugs), without a reverse per link."""
    # ``…/vs/0-vs-0/`` reversed once; the pair's two slugs take the place of the zeros
    return f"{_prefix('head-to-head', arena, '0')[: -len('0-vs-')]}{a}-vs-{b}/"


@functools.lru_cache(maxsize=512)
def _cell_inner(verdict: str, proof: str | None, quality: int | None) -> str:
    """A matrix cell's badge: the same few dozen strings make up a whole matrix (keyed by the plain
    fields, so a cached cell costs no value object)."""
    return _MATRIX_BADGE.render(CellValue(verdict, proof, quality))


# ---- evidence freshness (stories/freshness.py has the rule)

_NO_DATE = object()  # what a stand-in for a cell that does not read its date gives

_STALE_BADGE = '<span class="stale-badge" title="evidence older than {days} days">stale</span>'


def _freshness_now() -> tuple:
    """Today and the stale age, read once per tag call (a page shows hundreds of cells)."""
    return freshness.today(), freshness.stale_days()


def _checked_html(verdict: str, as_of, now: tuple, *, badge: bool = True) -> str:
    """``checked 75 days ago (<time>2026-09-16</time>)`` and, when the cell is stale, its
    "stale" badge (text, not colour only); ``no check date`` without one."""
    today, days = now
    age = freshness.age_days(as_of, today=today)
    if as_of is None:
        text = freshness.age_text(None)
    else:
        text = (
            f'{freshness.age_text(age)} (<time datetime="{as_of:%Y-%m-%d}">{as_of:%Y-%m-%d}</time>)'
        )
    stale = badge and freshness.is_stale(verdict, as_of, today=today, days=days)
    return f"{text}{' ' + _STALE_BADGE.format(days=int(days)) if stale else ''}"


@register.simple_tag
def evidence_checked(cell) -> str:
    """How old a cell's newest evidence is, ``checked 75 days ago (2026-09-16)``, with a "stale"
    badge when it is older than ``EVIDENCE_STALE_DAYS`` (the cell page, cards)."""
    return mark_safe(_checked_html(cell.verdict, cell.evidence_as_of, _freshness_now()))


@register.simple_tag
def stale_days() -> int:
    """``settings.EVIDENCE_STALE_DAYS``: evidence older than this is stale."""
    return freshness.stale_days()


@register.simple_tag
def evidence_item(e) -> str:
    """One evidence quote of a cell page or card: ``[source] “quote”``, its link when it has one
    (``rel="nofollow ugc noopener"``: visitors' sources are accepted from flags) and the day it
    was checked."""
    return mark_safe(_evidence_item(e))


def _evidence_item(e) -> str:
    out = f'<li><span class="source">[{_esc(e.source)}]</span> <q>{_esc(e.quote)}</q>'
    url = getattr(e, "url", "")
    if url:
        out += (
            f' <a class="evidence-link" href="{_esc(url)}" rel="nofollow ugc noopener">'
            f'source <span aria-hidden="true">↗</span></a>'
        )
    checked = getattr(e, "checked_on", None)
    if checked is not None:
        out += (
            f' <span class="evidence-checked">checked <time datetime="{checked:%Y-%m-%d}">'
            f"{checked:%Y-%m-%d}</time></span>"
        )
    return out + "</li>"


def _stale_title(as_of, today) -> str:
    if as_of is None:
        return "stale: no check date"
    return f"stale: evidence {freshness.age_text(freshness.age_days(as_of, today=today))}, {as_of:%Y-%m-%d}"


def _cells_html(cells, flag_controls: bool, labels: dict[int, str]) -> str:
    """The ``<td>`` of each cell, linking to its proof page and, with ``flag_controls``, with a
    small flag control. ``labels``: products' escaped names by key, filled as they come. A cell
    whose evidence is stale carries a small "stale" mark, its age on hover."""
    prefix = _prefix("cell-detail")
    today, days = _freshness_now()
    out = []
    for c in cells:
        pk = int(c.pk)
        flag = ""
        if flag_controls:
            label = labels.get(c.product_id)
            if label is None:
                label = labels[c.product_id] = _esc(c.product.name)
            flag = f'<a class="flag-mini" href="{prefix}{pk}/flag/" aria-label="Flag {label}">⚑</a>'
        as_of = getattr(c, "evidence_as_of", _NO_DATE)  # (a stand-in may not read it)
        if as_of is not _NO_DATE and freshness.is_stale(c.verdict, as_of, today=today, days=days):
            out.append(
                f'<td class="{verdict_class(c.verdict)}"><a href="{prefix}{pk}/">'
                f"{_cell_inner(c.verdict, c.proof, c.quality)}"
                f' <small class="stale-mark" title="{_stale_title(as_of, today)}">stale</small>'
                f"</a>{flag}</td>"
            )
            continue
        out.append(
            f'<td class="{verdict_class(c.verdict)}"><a href="{prefix}{pk}/">'
            f"{_cell_inner(c.verdict, c.proof, c.quality)}</a>{flag}</td>"
        )
    return "".join(out)


@register.simple_tag
def matrix_cells(row, flag_controls: bool = False) -> str:
    """The ``<td>`` of every cell of one matrix row, each linking to its proof page and, with
    ``flag_controls``, with a small flag control (``site.js`` opens its form in the flag dialog).

    Built in one pass rather than one template include per cell: the big arena has 9,000 cells."""
    # every interpolated value is escaped or an int
    return mark_safe(_cells_html(row.cells, flag_controls, {}))


@functools.lru_cache(maxsize=512)
def _card_badge(verdict: str, proof: str | None, quality: int | None) -> tuple[str, bool]:
    """A card's badge in words (as ``{% verdict cell True %}``) and whether the verdict rests on
    evidence: a few dozen judgements make up every card of a page."""
    value = CellValue(verdict, proof or None, quality)
    return _BADGE_WORDS.render(value), value.evidenced


def _flag_control(pk: int, label: str) -> str:
    """The small "⚑ flag" control beside a verdict: a link to the flag page, which ``site.js``
    opens in the flag dialog instead. ``label``: the product and verdict, escaped."""
    return (
        f'<a class="flag-control" href="{_prefix("cell-detail")}{pk}/flag/"'
        f' aria-label="Flag this verdict: {label}">⚑ flag</a>'
    )


@register.simple_tag
def flag_control(cell) -> str:
    """A cell's flag control (see ``_flag_control``)."""
    label = _esc(f"{cell.product.name}, {cell.verdict}")
    return mark_safe(_flag_control(int(cell.pk), label))  # escaped above; the rest are ints


# An unpublished cell's one quiet line (no card, no proof link: its page has nothing more to show).
_UNPUBLISHED = '<span class="unpublished-note">· rationale not published</span>'


def _correction_note(cell) -> str:
    """The one line that says how the rationale stands to the cell's last upheld correction:
    written before it (the verdict changed since), else rewritten with it."""
    if cell.rationale_predates is not None:
        return (
            '<p class="correction-note">Written before the correction of '
            f"{_day(cell.rationale_predates)} — the verdict changed since.</p>"
        )
    if cell.rationale_rewritten_at is not None:
        return (
            '<p class="correction-note">Rewritten with the correction of '
            f"{_day(cell.rationale_rewritten_at)}.</p>"
        )
    return ""


def _day(moment) -> str:
    """A stored moment's day, ``2026-11-30``, in the site's time zone."""
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)
    return f"{moment:%Y-%m-%d}"


def _cell_card(cell, name: str, cells: str, now: tuple | None = None) -> str:
    """See ``cell_card``; ``name`` escaped, ``cells``: the proof pages' URL prefix; ``now``:
    today and the stale age (read when not given)."""
    pk = int(cell.pk)
    badge, evidenced = _card_badge(cell.verdict, cell.proof, cell.quality)
    label = _esc(f"{cell.product.name}, {cell.verdict}")
    # (a stand-in for a cell that does not read the date shows none)
    as_of = getattr(cell, "evidence_as_of", _NO_DATE)
    checked = (
        ""
        if as_of is _NO_DATE or not CellValue.of(cell).applicable
        else _checked_html(cell.verdict, as_of, now or _freshness_now())
    )
    if not cell.detail_published:
        checked = f' <span class="cell-checked">· {checked}</span>' if checked else ""
        return (
            f'<div class="cell-line" id="cell-{pk}"><strong class="cell-name">{name}</strong>'
            f" {badge}{checked} {_UNPUBLISHED} {_flag_control(pk, label)}</div>"
        )
    out = [
        f'<article class="cell-card" id="cell-{pk}" aria-label="{name}: {_esc(cell.verdict)}">'
        f'<p class="cell-verdict"><strong class="cell-name">{name}</strong> {badge}</p>'
    ]
    if checked:
        out.append(f'<p class="cell-checked">Evidence {checked}</p>')
    out.append(_correction_note(cell))
    if cell.rationale:
        out.append(f'<p class="rationale">{_esc(cell.rationale)}</p>')
    quotes = cell.evidence.all()
    if quotes:
        out.append('<ul class="evidence" aria-label="Evidence">')
        out.extend(_evidence_item(e) for e in quotes)
        out.append("</ul>")
    url = f"{cells}{pk}/"
    hidden = f'<span class="visually-hidden"> for {name}</span>'
    link = (
        f'<a class="proof-link" href="{url}">proof <span aria-hidden="true">↗</span>{hidden}</a>'
        if evidenced
        else f'<a class="proof-link quiet" href="{url}">details{hidden}</a>'
    )
    out.append(f'<div class="cell-actions">{link}{_flag_control(pk, label)}</div></article>')
    return "".join(out)


@register.simple_tag
def cell_card(cell, name: str) -> str:
    """One judged cell as a card: ``name`` (its heading) and its badge, its rationale and evidence
    quotes (``cell.evidence.all()``, loaded beforehand), the link to its proof page and its flag
    control; a cell whose detail is not published is one quiet line (name, badge, flag control).
    The story and head-to-head pages show dozens to hundreds of them."""
    # every interpolated value is escaped or an int
    return mark_safe(_cell_card(cell, _esc(name), _prefix("cell-detail")))


@functools.lru_cache(maxsize=512)
def _row_badge(verdict: str, proof: str | None, quality: int | None) -> str:
    """A round's badge in the head-to-head table, ``✓ full C 8/10`` (the proof's name on hover of
    its letter)."""
    return _BADGE.render(CellValue(verdict, proof or None, quality))


def _round_cards(row, names: dict) -> str:
    """Both sides' cards of one round: what its ``<details>`` unfolds."""
    cells = _prefix("cell-detail")
    return f"{_cell_card(row.cell_a, names['a'], cells)}{_cell_card(row.cell_b, names['b'], cells)}"


@register.simple_tag
def head_to_head_cards(row, cmp) -> str:
    """One round's two cards (what a lazy round's ``<details>`` loads when it is opened)."""
    return mark_safe(_round_cards(row, _names(cmp)))


def _round(
    row, names: dict, arena: str, open_all: bool = False, lazy: str | None = None, opened=None
) -> str:
    """See ``head_to_head_round``; ``names``: each side's product name, escaped, by side ("a",
    "b") and by product pk. ``lazy``: the head-to-head's address when the rounds' cards are not
    in the page but load as a round is opened (``?open=<story>``: with htmx, the two cards;
    without, the page with that round open), except the round ``opened``."""
    story = row.story
    pk = int(story.pk)
    a, b = row.cell_a, row.cell_b
    if row.winner is None:
        side, mark = "draw", '<span aria-hidden="true">=</span> draw'
    elif row.winner.pk == a.product.pk:
        side = "win-a"
        mark = (
            f'<span aria-hidden="true">◀</span> <span class="wname">{names["a"]}</span>'
            '<span class="visually-hidden"> wins</span>'
        )
    else:
        side = "win-b"
        mark = (
            f'<span class="wname">{names["b"]}</span><span class="visually-hidden"> wins</span>'
            ' <span aria-hidden="true">▶</span>'
        )
    published = a.detail_published or b.detail_published
    why = (
        '<span class="visually-hidden">rationale and </span>evidence'
        if published
        else '<span class="visually-hidden">rationale </span>not published'
    )
    # every interpolated value is escaped or an int
    return (
        f'<tr id="story-{pk}" class="round {side}">'
        f'<td class="h-story"><div class="story-cell"><span class="story-text">'
        f'<span class="persona">{_esc(story.persona.label)}</span> '
        f'<a href="{_prefix("story-detail", arena)}{pk}/">{_esc(story.text)}</a></span> '
        f"{_why(row, names, pk, published, why, open_all, lazy, opened)}</div></td>"
        f'<td class="h-w num"><span class="visually-hidden">weight </span>{int(story.weight)}</td>'
        f'<td class="h-a">{_row_badge(a.verdict, a.proof, a.quality)}</td>'
        f'<td class="h-win"><span class="win">{mark}</span></td>'
        f'<td class="h-b">{_row_badge(b.verdict, b.proof, b.quality)}</td></tr>'
    )


def _why(row, names, pk: int, published: bool, why: str, open_all, lazy, opened) -> str:
    """A round's folded rationale and evidence: its cards, or (``lazy``) a link to them that htmx
    follows when the round is opened."""
    quiet = "" if published else " quiet"
    if lazy is None or open_all or pk == opened:
        state = " open" if open_all or pk == opened else ""
        return (
            f'<details class="why{quiet}"{state}><summary>{why}</summary>'
            f'<div class="why-body">{_round_cards(row, names)}</div></details>'
        )
    url = f"{_esc(lazy)}?open={pk}"
    return (
        f'<details class="why{quiet}" hx-get="{url}" hx-trigger="toggle once"'
        f' hx-target="#why-{pk}" hx-swap="innerHTML"><summary>{why}</summary>'
        f'<div class="why-body" id="why-{pk}"><a href="{url}#story-{pk}">Show both verdicts’'
        f" rationale and evidence</a></div></details>"
    )


def _names(cmp) -> dict:
    a, b = _esc(cmp.a.name), _esc(cmp.b.name)
    return {"a": a, "b": b, cmp.a.pk: a, cmp.b.pk: b}


@register.simple_tag
def head_to_head_round(row, cmp, arena: str, open_all: bool = False) -> str:
    """One round of a head-to-head (``CompareRow``) as a row of its category's table: the story
    (``arena``: the arena's slug, for its link) with its persona, the rationale and evidence of
    both sides folded under it (``open_all``: unfolded), its weight, each side's badge and the
    winner between them (``◀ A``, ``= draw``, ``B ▶``)."""
    return mark_safe(_round(row, _names(cmp), arena, open_all))


def _rounds(rows, names: dict, arena: str, open_all: bool, lazy=None, opened=None) -> str:
    return "".join(_round(row, names, arena, open_all, lazy, opened) for row in rows)


@register.simple_tag
def head_to_head_rounds(rows, cmp, arena: str, open_all: bool = False) -> str:
    """The rounds of one sub-group (see ``head_to_head_round``), one tag for all of them (the
    products' names escaped once)."""
    return mark_safe(_rounds(rows, _names(cmp), arena, open_all))


def _tally_line(t, names: dict) -> str:
    """``Inngest 5 won · 2 drawn · Hatchet 3 won · weighted 12–7``."""
    return (
        f'<span class="t-a">{names["a"]} {int(t.won_a)} won</span> · {int(t.drawn)} drawn · '
        f'<span class="t-b">{names["b"]} {int(t.won_b)} won</span>'
        f" · weighted {int(t.weighted_a)}–{int(t.weighted_b)}"
    )


def _category_id(block) -> str:
    return f"cat-{_esc(block.slug)}"


@register.simple_tag
def head_to_head_tables(
    cmp, arena: str, open_all: bool = False, lazy: str | None = None, opened=None
) -> str:
    """Every category of a head-to-head (``cmp.blocks``, the rounds shown) as a section: its
    heading, its tally over all its rounds, and a table of its rounds, a sub-group's rounds under
    the sub-group's name (``head_to_head_round``); the header row names both sides. ``lazy`` and
    ``opened``: see ``_round``."""
    names = _names(cmp)
    head = (
        '<thead><tr><th scope="col" class="h-story">Story</th>'
        '<th scope="col" class="h-w num"><abbr title="Weight">Wt</abbr></th>'
        f'<th scope="col" class="h-a">{names["a"]}</th>'
        '<th scope="col" class="h-win">Round</th>'
        f'<th scope="col" class="h-b">{names["b"]}</th></tr></thead>'
    )
    out = []
    for block in cmp.blocks:
        cat = block.category
        hid = f"h2h-cat-{int(cat.pk)}"
        tally = cmp.tallies.get(cat.pk)
        shown = block.count
        out.append(
            f'<section class="h2h-category" id="{_category_id(block)}" aria-labelledby="{hid}">'
            f'<div class="cat-head"><h2 id="{hid}">{_esc(cat.name)}</h2>'
            f'<p class="cat-tally">{_tally_line(tally, names) if tally else ""}'
            + (
                f' <span class="muted">· {_plural(shown, "round", "rounds")} shown</span>'
                if cmp.differences_only
                else ""
            )
            + f'</p></div><table class="h2h-table" aria-labelledby="{hid}">{head}'
        )
        for group in block.groups:
            out.append("<tbody>")
            if group.subgroup:
                out.append(
                    '<tr class="sub"><th scope="rowgroup" colspan="5">'
                    f"{_esc(group.subgroup.name)}</th></tr>"
                )
            out.append(_rounds(group.rows, names, arena, open_all, lazy, opened))
            out.append("</tbody>")
        out.append("</table></section>")
    # every interpolated value is escaped or an int
    return mark_safe("".join(out))


@register.simple_tag
def head_to_head_jump(cmp) -> str:
    """The jump menu: a link to each category shown, with its rounds shown."""
    items = "".join(
        f'<li><a href="#{_category_id(block)}">{_esc(block.category.name)}'
        f' <span class="n">({int(block.count)})</span></a></li>'
        for block in cmp.blocks
    )
    return mark_safe(items)


@register.simple_tag
def product_rows(rows, arena: str) -> str:
    """The rows of a product's page's verdict table (``arena_matrix`` rows of its one column): the
    story with its persona, the verdict linking to its proof, and its flag control (``arena``: the
    arena's slug, for the story links)."""
    stories = _prefix("story-detail", arena)
    labels: dict[int, str] = {}
    out = []
    for row in rows:
        story = row.story
        persona = _esc(story.persona.slug)
        controls = "".join(
            f'<div id="cell-{int(c.pk)}">'
            f"{_flag_control(int(c.pk), _esc(f'{c.product.name}, {c.verdict}'))}</div>"
            for c in row.cells
        )
        out.append(
            f'<tr><th scope="row" class="story-col"><a href="{stories}{int(story.pk)}/">'
            f'{_esc(story.text)}</a><span class="persona-inline">{persona}</span></th>'
            f'<td class="persona">{persona}</td>{_cells_html(row.cells, False, labels)}'
            f'<td class="actions">{controls}</td></tr>'
        )
    return mark_safe("\n".join(out))  # every interpolated value is escaped or an int


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _matrix_tbody(
    block, *, ncols: int, col_head: str, rows_of, load_url: str, unfold_url=None
) -> str:
    """One category of the matrix as a ``<tbody id="mx-cat-<pk>">``: its heading with its story
    count and a "Hide" link that folds it, then each sub-group's heading, column heads and rows; a
    collapsed one its heading and the link that loads its rows. ``load_url``: the arena page's
    address with the current query, to which the category (or the fold) is added;
    ``unfold_url(slug)``: without JavaScript, the page with that folded category open again (None:
    the category is not folded, its link shows it alone)."""
    category = block.category
    pk = int(category.pk)
    name = _esc(category.name)
    count = _plural(block.count, "story", "stories")
    extra = f' <span class="blurb">{_esc(category.blurb)}</span>' if category.blurb else ""
    if not block.collapsed:
        fold = _esc(f"{load_url}{urlencode({'fold': block.slug})}")
        extra = (
            f' <span class="cat-count">{count}</span>'
            f' <a class="cat-fold" href="{fold}#matrix-section" hx-get="{fold}"'
            f' hx-target="#mx-cat-{pk}" hx-select="#mx-cat-{pk}" hx-swap="outerHTML">'
            f'Hide<span class="visually-hidden"> {name}</span></a>{extra}'
        )
    else:
        url = _esc(f"{load_url}{urlencode({'category': block.slug})}")
        unfolded = unfold_url(block.slug) if unfold_url else None
        href = _esc(unfolded) if unfolded is not None else url
        extra += (
            f' <a class="cat-load" href="{href}#matrix-section" hx-get="{url}"'
            f' hx-target="#mx-cat-{pk}" hx-swap="outerHTML">'
            f"Show {count}"
            f'<span class="visually-hidden"> of {name}</span></a>'
        )
    state = ' class="collapsed"' if block.collapsed else ""
    out = [
        f'<tbody id="mx-cat-{pk}"{state}>'
        f'<tr class="cat-row"><th colspan="{ncols}" scope="colgroup" id="cat-{pk}">'
        f'<div class="sticky-left"><h3>{name}</h3>{extra}</div></th></tr>'
    ]
    if not block.collapsed:
        for group in block.groups:
            if group.subgroup:
                out.append(
                    f'<tr class="sub-row"><th colspan="{ncols}" scope="colgroup">'
                    f'<div class="sticky-left"><h4>{_esc(group.subgroup.name)}</h4></div></th></tr>'
                )
            out.append(col_head)
            out.extend(rows_of(group.rows))
    out.append("</tbody>")
    return "\n".join(out)


@register.simple_tag
def matrix_table(matrix, arena: str, query: dict | None = None, bodies_only: bool = False) -> str:
    """The arena page's story matrix (``arena_matrix``'s) as one table: a ``<tbody>`` per category
    (see ``_matrix_tbody``), each story's row with its persona and one cell per product shown, with
    flag controls. ``arena``: the arena's slug; ``query``: what links that load a collapsed
    category carry besides it (filters, ranking, products shown). ``bodies_only``: the
    ``<tbody>`` elements alone (what an htmx request for one category swaps in).

    Written in Python rather than by template loops: a matrix is hundreds of rows and cells."""
    arena_url = _url_prefix(get_script_prefix(), "arena-detail")  # ``/arenas/``
    load_url = f"{arena_url}{arena}/?{urlencode(query or {})}{'&' if query else ''}"
    folded = [f for f in (query or {}).get("fold", "").split(",") if f]

    def unfold_url(slug: str) -> str | None:
        if slug not in folded:
            return None
        rest = {**(query or {}), "fold": ",".join(f for f in folded if f != slug)}
        kept = urlencode({k: v for k, v in rest.items() if v})
        return f"{arena_url}{arena}/{'?' if kept else ''}{kept}"

    products = _prefix("product-detail", arena)
    stories = _prefix("story-detail", arena)
    ncols = len(matrix.products) + 2
    sort = matrix.filters.sort
    col_head = (
        '<tr class="col-head"><th scope="col" class="story-col">Story</th>'
        '<th scope="col" class="persona">Persona</th>'
        + "".join(
            f'<th scope="col" class="sorted" aria-sort="descending"><a href="{products}{p.slug}/">'
            f'{_esc(p.name)}</a> <span aria-hidden="true">▼</span></th>'
            if p.slug == sort
            else f'<th scope="col"><a href="{products}{p.slug}/">{_esc(p.name)}</a></th>'
            for p in matrix.products
        )
        + "</tr>"
    )
    personas: dict[int, str] = {}
    labels: dict[int, str] = {}

    def rows_of(rows) -> list[str]:
        out = []
        for row in rows:
            story = row.story
            persona = personas.get(story.persona.pk)
            if persona is None:
                persona = personas[story.persona.pk] = _esc(story.persona.slug)
            out.append(
                f'<tr><th scope="row" class="story-col"><a href="{stories}{int(story.pk)}/">'
                f'{_esc(story.text)}</a><span class="persona-inline">{persona}</span></th>'
                f'<td class="persona">{persona}</td>{_cells_html(row.cells, True, labels)}</tr>'
            )
        return out

    bodies = "\n".join(
        _matrix_tbody(
            b,
            ncols=ncols,
            col_head=col_head,
            rows_of=rows_of,
            load_url=load_url,
            unfold_url=unfold_url,
        )
        for b in matrix.blocks
    )
    if bodies_only:
        return mark_safe(bodies)  # every interpolated value is escaped or an int
    return mark_safe(
        '<table class="matrix"><caption class="visually-hidden">Verdict of each product on each'
        " user story; each cell links to its proof.</caption>\n"
        f"{bodies}\n</table>"
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


# The arena page's lists, each written by one tag rather than a template loop (a loop costs a
# variable resolution per value shown): every value is escaped here, the result marked safe once.


def _options(choices, selected: str) -> str:
    """``<option>`` elements of (value, label) pairs, ``selected`` the chosen value."""
    return "".join(
        f'<option value="{_esc(str(value))}"{" selected" if value == selected else ""}>'
        f"{_esc(str(label))}</option>"
        for value, label in choices
    )


@register.simple_tag
def rank_options(board) -> str:
    """The "Rank by" menu's option groups (``Leaderboard.options``), the key in effect selected."""
    # while a visitor's weights rank the board, they replace the rank: a choice that is not one
    # (disabled: the form sends no rank, and picking a rank replaces the weights)
    weighted = getattr(board, "weighted", False)
    head = '<option value="" disabled selected>Your weights</option>\n' if weighted else ""
    selected = "" if weighted else board.key
    return mark_safe(
        head
        + "\n".join(
            f'<optgroup label="{_esc(group)}">'
            f"{_options(((o.key, o.label) for o in options), selected)}</optgroup>"
            for group, options in board.options
        )
    )


@register.simple_tag
def persona_options(persona_results, selected: str) -> str:
    """The matrix filter's persona options (by slug), ``selected`` the one picked."""
    slugs = [r.persona.slug for r in persona_results]
    return mark_safe(_options(zip(slugs, slugs, strict=True), selected))


@register.simple_tag
def category_options(categories, selected: str) -> str:
    """The matrix filter's category options (value the slug, label the name)."""
    return mark_safe(_options(((c.slug, c.name) for c in categories), selected))


@register.simple_tag
def sort_options(products, selected: str) -> str:
    """The matrix's "Sort stories by" options: matrix order, then each product shown."""
    choices = [("", "Matrix order"), *((p.slug, f"{p.name}’s verdicts") for p in products)]
    return mark_safe(_options(choices, selected))


@register.simple_tag
def proof_key() -> str:
    """The proof letters the matrix uses, each with its name: the key above the matrix."""
    return mark_safe(
        " · ".join(
            f'<span class="nw"><b>{_esc(p.letter)}</b> {_esc(p.value)}</span>' for p in Proof
        )
    )


@register.simple_tag
def verdict_options(selected: str) -> str:
    """The matrix filter's verdict options, ``✓ full`` … ``n/a``."""
    choices = ((v.value, f"{v.symbol} {v.label}" if v.symbol else v.label) for v in Verdict)
    return mark_safe(_options(choices, selected).replace("</option><", "</option>\n<"))


def _popularity(p) -> str:
    out = []
    if p.stars is not None:
        out.append(f'<span title="GitHub stars">★ {_esc(format_figure(p.stars))}</span> ')
    if p.stars_growth is not None:
        out.append(
            f'<span title="stars gained per year">▲ {_esc(format_figure(p.stars_growth))}/yr</span> '
        )
    if p.npm_weekly is not None:
        out.append(
            f'<span title="npm downloads per week">npm {_esc(format_figure(p.npm_weekly))}/wk</span> '
        )
    if p.pypi_weekly is not None:
        out.append(
            f'<span title="PyPI downloads per week">pypi {_esc(format_figure(p.pypi_weekly))}/wk</span>'
        )
    return "".join(out)


def _range_bar(score: int, low: int, high: int) -> str:
    """A score's range drawn on a 0-100 track, a tick at the score: decorative (the text says it)."""
    return (
        '<svg class="rbar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"'
        ' focusable="false"><rect class="rbar-track" x="0" y="4" width="100" height="2"/>'
        f'<rect class="rbar-range" x="{low}" y="2" width="{max(high - low, 0)}" height="6"/>'
        f'<rect class="rbar-tick" x="{min(max(score - 1, 0), 98)}" y="0" width="2" height="10"/>'
        "</svg>"
    )


def _ranged(value: int | None, rng) -> str:
    """A score with its range, ``57 (49–61)`` and its bar (``57/100, range 49–61`` read out);
    ``57/100`` with no range stored, ``—`` with no score."""
    if value is None:
        return "—"
    if not rng:
        return f"{int(value)}/100"
    low, high = int(rng[0]), int(rng[1])
    return (
        f'<span class="ranged"><span class="nw">{int(value)}'
        f'<span class="visually-hidden">/100, range</span> <span class="rng">({low}–{high})'
        f"</span></span>{_range_bar(int(value), low, high)}</span>"
    )


@register.simple_tag
def score_with_range(score) -> str:
    """A stored score row's PA Score with its range and bar (the product page)."""
    low, high = getattr(score, "pa_low", None), getattr(score, "pa_high", None)
    rng = (low, high) if low is not None and high is not None else None
    return mark_safe(_ranged(score.pa_score, rng))


def _moved(row) -> str:
    """How far a row moved from its published rank: ``▲2`` / ``▼1`` / ``=``, in words for
    screen readers."""
    moved, published = int(row.moved), int(row.published_position)
    if moved > 0:
        mark, cls, words = f"▲{moved}", "up", f"up {moved} from published rank {published}"
    elif moved < 0:
        mark, cls = f"▼{-moved}", "down"
        words = f"down {-moved} from published rank {published}"
    else:
        mark, cls, words = "=", "same", f"same as published rank {published}"
    return (
        f'<span class="moved {cls}"><span aria-hidden="true">{mark}</span>'
        f'<span class="visually-hidden">{words}</span></span>'
    )


def _group_spans(board) -> dict:
    """Each row's range group as the places it spans (``"2–4"``), for groups of two or more."""
    spans: dict = {}
    for i, row in enumerate(board.rows):
        group = getattr(row, "range_group", None)
        if group is not None:
            first, _ = spans.get(group, (i + 1, i + 1))
            spans[group] = (first, i + 1)
    return {g: f"{a}–{b}" for g, (a, b) in spans.items() if b > a}


@register.simple_tag
def leaderboard_rows(board, arena: str) -> str:
    """The leaderboard's ``<tr>`` rows (``Leaderboard.rows``, stored scores in the asked order):
    rank, product with its tier and head-to-head link, with a visitor's weights their score and
    how far the row moved, the PA Score with its range, each persona's score, the ranked
    category's, the range group, popularity, verified share, integrity and confidence; the ranked
    column marked. ``arena``: the arena's slug, for the links."""
    products = _prefix("product-detail", arena)
    pairs = _prefix("head-to-head", arena, "0")[: -len("0-vs-")]
    ranked = ' class="num ranked"'
    weighted = getattr(board, "weighted", False)
    pa = ranked if board.by_pa else ' class="num"'
    persona, category = board.persona, board.category
    verified = ' class="ranked"' if board.by_verified else ' class=""'
    integrity = ' class="ranked"' if board.by_integrity else ' class=""'
    groups = _group_spans(board) if getattr(board, "range_groups", None) else None
    out = []
    for row in board.rows:
        p = row.product
        name = _esc(p.name)
        head = f'<a class="pname" href="{products}{_esc(p.slug)}/">{name}</a>'
        if p.tier:
            head += f' <span class="badge">{_esc(p.tier)}</span>'
        if row.vs:
            head += (
                f' <a class="vs" href="{pairs}{_esc(p.slug)}-vs-{_esc(row.vs.slug)}/">'
                f'vs {_esc(row.vs.name)} <span aria-hidden="true">↗</span></a>'
            )
        scores = row.persona_scores or {}
        by_persona = "".join(
            f"<td{ranked if slug == persona else ' class="num"'}>"
            f"{_esc(score(scores.get(slug)))}</td>"
            for slug in board.personas
        )
        if category:
            by_persona += (
                f"<td{ranked}>{_esc(score((row.category_scores or {}).get(category)))}</td>"
            )
        if groups is not None:
            span = groups.get(row.range_group)
            by_persona += (
                f'<td class="num group">{span}</td>'
                if span
                else '<td class="num group"><span aria-hidden="true">—</span>'
                '<span class="visually-hidden">alone</span></td>'
            )
        disputed = (
            f' <span class="nw">· {int(row.disputed)} disputed</span>' if row.disputed else ""
        )
        grade = _esc(row.confidence)
        position = int(row.position)
        rank = (
            f'<span aria-hidden="true">=</span><span class="visually-hidden">tied at </span>'
            f"{position}"
            if row.tied
            else str(position)
        )
        mine = ""
        if weighted:
            mine = (
                f"<td{ranked}>{_ranged(row.personal_score, row.personal_range)}</td>"
                f'<td class="num moved-col">{_moved(row)}</td>'
            )
        out.append(
            f'<tr><td class="num rank">{rank}</td>'
            f'<th scope="row" class="sticky-col product">{head}</th>{mine}'
            f"<td{pa}>{_ranged(row.pa_score, getattr(row, 'pa_range', None))}</td>{by_persona}"
            f'<td class="pop">{_popularity(p)}</td>'
            f'<td{verified}><span class="nw">{int(row.verified)}/{int(row.with_evidence)}'
            f" verified</span>{disputed}{_stale_share(row)}</td>"
            f'<td{integrity}><span class="nw">{_esc(score(row.integrity))} integrity</span></td>'
            f'<td><span class="grade grade-{grade}" title="evidence confidence {grade}">{grade}'
            "</span></td></tr>"
        )
    return mark_safe("\n".join(out))


def _product_names(rows) -> str:
    """``A, B and C``, escaped."""
    names = [_esc(r.product.name) for r in rows]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# A range group of more products than this is given by its places and its ends, not every name.
GROUP_NAMES_MAX = 6


def _stale_share(row) -> str:
    """A product's stale cells beside its verified share (``· 3 stale (8%)``), when some of its
    cells' evidence is older than ``EVIDENCE_STALE_DAYS``; nothing when none is."""
    stale, cells = getattr(row, "stale_cells", 0), getattr(row, "cells", 0)
    if not stale or not cells:
        return ""
    share = scoring.round_half_up(100 * stale / cells)
    return (
        f' <span class="nw stale-share-lb">· {int(stale)} stale ({share}%)'
        f'<span class="visually-hidden"> of {int(cells)} cells: evidence older than '
        f"{int(freshness.stale_days())} days</span></span>"
    )


@register.simple_tag
def range_group_notes(board) -> str:
    """Under the leaderboard, one sentence per range group: whose ranges overlap."""
    out = []
    for rows in board.range_groups:
        first = board.rows.index(rows[0]) + 1
        if len(rows) <= GROUP_NAMES_MAX:
            who = _product_names(rows)
        else:
            who = f"Places {first}–{first + len(rows) - 1}"
        out.append(f"{who}: ranges overlap; the evidence does not settle their order.")
    return mark_safe(" ".join(out))


@register.simple_tag
def weights_summary(board) -> str:
    """``Privacy posture ×3, Agenticness ignored`` (escaped), or ``all normal``."""
    said = board.reading.summary if board.reading is not None else []
    return ", ".join(_esc(s) for s in said) or "all normal"


@register.simple_tag
def weight_controls(board) -> str:
    """The weights panel's controls: per category, then per user type, a menu ignore / normal /
    important / critical (``w-<key>``, 0-3) showing the level in effect."""
    if board.reading is None:
        return ""
    groups: dict[str, list[str]] = {"category": [], "persona": []}
    for control in board.reading.controls:
        key = control.key
        field = _esc(control.field)
        options = "".join(
            f'<option value="{level}"{" selected" if level == control.value else ""}>'
            f"{_esc(word)}</option>"
            for level, word in scoring.WEIGHT_LEVELS.items()
        )
        groups[key.kind].append(
            f'<div class="wfield"><label for="{field}">{_esc(key.label)}</label>'
            f'<select id="{field}" name="{field}">{options}</select></div>'
        )
    legends = {"category": "Categories", "persona": "User types"}
    return mark_safe(
        "".join(
            f'<fieldset class="wgroup"><legend>{legends[kind]}</legend>'
            f'<div class="wgrid">{"".join(items)}</div></fieldset>'
            for kind, items in groups.items()
            if items
        )
    )


@register.simple_tag
def weights_link(url: str, arena_url: str, weights: str, text: str) -> str:
    """A link that sets the weights (a preset, the reset): the shareable address without
    JavaScript; with htmx it re-ranks the leaderboard in place, the matrix filters kept."""
    # (the reset sends an empty list, ``,``: an empty value would be left out of the request)
    vals = _esc(json.dumps({"weights": weights or ","}))
    return mark_safe(
        f'<a href="{_esc(url)}" hx-get="{_esc(arena_url)}" hx-vals="{vals}"'
        ' hx-include="#matrix-filters" hx-target="#leaderboard" hx-indicator="#leaderboard">'
        f"{_esc(text)}</a>"
    )


@register.simple_tag
def persona_cards(persona_results, arena: str, board=None) -> str:
    """The "Best by user type" cards: each persona's winner and runner-up (linking to their
    pages), what decided a tie between them, its story count (with a warning when fewer than
    ``scoring.FEW_STORIES`` decide it) and the link to its stories in the matrix (``arena``: the
    slug; ``board``: the leaderboard, for the products' PA Scores a tie falls to)."""
    if not persona_results:
        return mark_safe('<li class="card">No persona results stored yet.</li>')
    products = _prefix("product-detail", arena)
    page = f"{_url_prefix(get_script_prefix(), 'arena-detail')}{_esc(arena)}/"
    pa = {row.product_id: row.pa_score for row in board.rows} if board is not None else {}
    # each product's range per persona (``ProductScore.persona_ranges``), from the same rows
    ranges = (
        {row.product_id: getattr(row, "persona_ranges", None) or {} for row in board.rows}
        if board is not None
        else {}
    )
    out = []
    for r in persona_results:
        slug = _esc(r.persona.slug)
        if r.winner:
            winner = (
                f'<p class="winner"><a href="{products}{_esc(r.winner.slug)}/">'
                f'{_esc(r.winner.name)}</a> <span class="big-score">'
                f"{_esc(score(r.winner_score))}</span></p>"
            )
        else:
            winner = '<p class="winner">No product scored</p>'
        if r.runner_up:
            winner += (
                f'\n<p>Runner-up: <a href="{products}{_esc(r.runner_up.slug)}/">'
                f"{_esc(r.runner_up.name)}</a> ({_esc(score(r.runner_up_score))})</p>"
            )
            decided_by = scoring.persona_decided_by(
                r.winner_score, r.runner_up_score, pa.get(r.winner.pk), pa.get(r.runner_up.pk)
            )
            if decided_by:
                winner += (
                    f'\n<p class="tie">Tied at {_esc(score(r.winner_score))}: '
                    f"{_esc(r.winner.name)} is ahead by {_TIE_BREAKS[decided_by]}.</p>"
                )
        n = int(r.story_count)
        few = ""
        if n < scoring.FEW_STORIES:
            few = (
                f'\n<p class="few"><span aria-hidden="true">⚠</span> Only '
                f"{_plural(n, 'story decides', 'stories decide')} this: a hint, not a verdict.</p>"
            )
        rng = ranges.get(r.winner.pk, {}).get(r.persona.slug) if r.winner else None
        spread = ""
        if rng and r.winner_score is not None:
            spread = (
                f' · range <span class="nw">{int(rng[0])}–{int(rng[1])}</span>'
                f"{_range_bar(int(r.winner_score), int(rng[0]), int(rng[1]))}"
            )
        out.append(
            f'<li class="card">\n<h3>Best for {slug}</h3>\n{winner}\n'
            f'<p class="muted">{n} {slug} stor{"y" if n == 1 else "ies"} scored{spread}</p>'
            f"{few}\n"
            f'<p><a href="{page}?persona={_esc(quote(r.persona.slug, safe="/"))}#matrix-section">'
            f'See these stories<span class="visually-hidden"> ({slug})</span></a></p>\n</li>'
        )
    return mark_safe("\n".join(out))


_TIE_BREAKS = {"PA Score": "a higher PA Score", "name": "name (alphabetical)"}


@register.simple_tag
def adjacent_cards(adjacent) -> str:
    """The adjacent arenas' cards (``arena_adjacent_list``): each one linking to its page when it
    is on this site."""
    arenas = _url_prefix(get_script_prefix(), "arena-detail")
    out = []
    for a in adjacent:
        name = _esc(a.name)
        if a.slug:
            name = f'<a href="{arenas}{_esc(a.slug)}/">{name}</a>'
        extra = f'\n<p class="muted">shares: {_esc(a.shares)}</p>' if a.shares else ""
        if not a.slug:
            extra += '\n<p class="muted">not on this site yet</p>'
        out.append(
            f'<li class="card">\n<h3>{name} <span class="kicker">arena</span></h3>\n'
            f"<p>{int(a.product_count)} products · leader: {_esc(a.leader)}</p>{extra}\n</li>"
        )
    return mark_safe("\n".join(out))


@register.simple_tag
def pick_list(products, shown) -> str:
    """The "Products shown" checkboxes: every product, those of ``shown`` checked."""
    picked = {p.pk for p in shown}
    return mark_safe(
        "".join(
            '<li><label><input type="checkbox" form="matrix-filters" name="show"'
            f' value="{_esc(p.slug)}"{" checked" if p.pk in picked else ""}> {_esc(p.name)}'
            "</label></li>"
            for p in products
        )
    )


@functools.lru_cache(maxsize=16)
def _legend(script_prefix: str) -> str:
    def items(rows) -> str:
        return "\n".join(
            f"<div><dt>{conditional_escape(mark)}</dt><dd>{conditional_escape(meaning)}</dd></div>"
            for mark, meaning in rows
        )

    guide = reverse("methodology")
    return f"""<section id="legend" class="legend" aria-labelledby="legend-h">
  <h2 id="legend-h">Legend</h2>
  <div class="legend-grid">
    <div>
      <h3>Verdict</h3>
      <dl class="legend-list">
{items(legend_verdicts())}
      </dl>
    </div>
    <div>
      <h3>Proof</h3>
      <dl class="legend-list">
{items(legend_proofs())}
      </dl>
    </div>
    <div>
      <h3>Numbers</h3>
      <dl class="legend-list">
        <div><dt>8/10</dt><dd>quality of the cell, 0–10</dd></div>
        <div><dt>PA Score /100</dt><dd>weighted coverage over every story of the arena</dd></div>
        <div><dt>15/41 verified</dt><dd>verified cells out of cells with evidence</dd></div>
        <div><dt>integrity /100</dt><dd>falls when verdicts do not hold up</dd></div>
        <div><dt><span class="grade">A</span>–<span class="grade">D</span></dt><dd>evidence confidence</dd></div>
      </dl>
    </div>
  </div>
  <p class="legend-foot">quality 0–10 · PA Score /100 · A–D = evidence confidence · <a href="{_esc(guide)}">full guide</a></p>
</section>"""


@register.simple_tag
def legend() -> str:
    """The legend of verdicts, proof letters and numbers (arena page and methodology): the same
    for every page, written once per process (and script prefix)."""
    return mark_safe(_legend(get_script_prefix()))


# ---------------------------------------------------------------- comparing two to six products


@register.simple_tag
def compare_url(arena: str, products) -> str:
    """The comparison of ``products`` (products, or leaderboard rows with ``.product``) in that
    order: ``/arenas/<arena>/compare/?products=a,b,c``."""
    slugs = ",".join(getattr(p, "product", p).slug for p in products)
    return f"{_url_prefix(get_script_prefix(), 'arena-detail')}{arena}/compare/?products={slugs}"


def _top(values: list) -> object:
    """The highest of some scores (None when there is none, or when they are all equal)."""
    known = [v for v in values if v is not None]
    if len(set(known)) < 2:
        return None
    return max(known)


def _score_cells(values: list, fmt) -> str:
    """A row of the score table: each value (``fmt`` writes it), the highest marked in text."""
    top = _top(values)
    return "".join(
        f'<td class="num top">{fmt(v)}<span class="visually-hidden"> (highest)</span>'
        '<span class="top-mark" aria-hidden="true"> ▲</span></td>'
        if v is not None and v == top
        else f'<td class="num">{fmt(v)}</td>'
        for v in values
    )


@register.simple_tag
def compare_scores(cmp) -> str:
    """The comparison's score table's rows: the stored PA Score, the rounds each product is best in
    (alone, shared) and their weights, then each category's stored score; the highest of each row
    marked "▲" (and "highest" for screen readers), not by colour."""
    standings = list(cmp.standings.values())

    def num(v) -> str:
        return _esc(score(v))

    rows = [
        '<tr class="pa"><th scope="row" class="sticky-col">PA Score</th>'
        f"{_score_cells([s.pa_score for s in standings], num)}</tr>",
        '<tr><th scope="row" class="sticky-col">Rounds best'
        ' <span class="col-kind">alone + shared</span></th>'
        + "".join(
            f'<td class="num">{int(s.best)}'
            + (f' <span class="muted">+ {int(s.shared)} shared</span>' if s.shared else "")
            + "</td>"
            for s in standings
        )
        + "</tr>",
        '<tr class="weighted-row"><th scope="row" class="sticky-col">Weighted'
        ' <span class="col-kind">Σ weights of rounds best</span></th>'
        f"{_score_cells([s.weighted for s in standings], str)}</tr>",
    ]
    rows.extend(
        f'<tr><th scope="row" class="sticky-col"><span class="col-kind">category</span>'
        f" {_esc(name)}</th>"
        f"{_score_cells([s.category_scores.get(name) for s in standings], num)}</tr>"
        for name in cmp.categories
    )
    return mark_safe("\n".join(rows))  # every interpolated value is escaped or an int


def _many_tally(t, names: dict) -> str:
    """``Inngest best in 3 (+1 shared) · Hatchet 0 · 2 drawn`` for one category's rounds."""
    parts = []
    for key, standing in t.standings.items():
        shared = f" (+{int(standing.shared)} shared)" if standing.shared else ""
        parts.append(f"{names[key]} {int(standing.best)}{shared}")
    return f"Best in: {' · '.join(parts)} · {int(t.drawn)} drawn"


def _many_cell(cell, best: bool, shared: bool, cells: str) -> str:
    """One product's cell of a round: its badge linking to its proof page, and "best" or "shared
    best" when it is (in words; the colour of the cell's edge only repeats it)."""
    if cell is None:
        return '<td class="c"><span class="muted">no verdict</span></td>'
    # the matrix's short badge, ``✓ full C 8/10``, its colours on the cell
    cls = f"c {verdict_class(cell.verdict)}"
    mark = ""
    if best:
        cls += " best"
        word = "shared best" if shared else "best"
        mark = f'<span class="best-mark"><span aria-hidden="true">★</span> {word}</span>'
    return (
        f'<td class="{cls}"><a href="{cells}{int(cell.pk)}/">'
        f"{_cell_inner(cell.verdict, cell.proof, cell.quality)}</a>{mark}</td>"
    )


@register.simple_tag
def compare_rounds(cmp, arena: str) -> str:
    """Every category of a comparison (``cmp.blocks``, the rounds shown) as a ``<tbody>``: its
    heading with its tally over all its rounds, each sub-group's heading, then a row per round: the
    story (``arena``: the slug, for its link) with its persona, its weight and each product's cell
    in column order, the best marked "best" or "shared best", a drawn round "= drawn"."""
    names = {p.pk: _esc(p.name) for p in cmp.products}
    ncols = len(cmp.products) + 2
    cells = _prefix("cell-detail")
    stories = _prefix("story-detail", arena)
    out = []
    for block in cmp.blocks:
        cat = block.category
        pk = int(cat.pk)
        tally = cmp.tallies.get(cat.pk)
        shown = (
            f' <span class="muted">· {_plural(block.count, "round", "rounds")} shown</span>'
            if cmp.differences_only
            else ""
        )
        out.append(
            f'<tbody id="cmp-cat-{pk}"><tr class="cat-row"><th colspan="{ncols}" scope="colgroup">'
            f'<div class="sticky-left"><h3>{_esc(cat.name)}</h3>'
            f' <span class="cat-tally">{_many_tally(tally, names) if tally else ""}{shown}</span>'
            "</div></th></tr>"
        )
        for group in block.groups:
            if group.subgroup:
                out.append(
                    f'<tr class="sub-row"><th colspan="{ncols}" scope="colgroup">'
                    f'<div class="sticky-left"><h4>{_esc(group.subgroup.name)}</h4></div></th></tr>'
                )
            for row in group.rows:
                story = row.story
                by = {c.product_id: c for c in row.cells}
                best = {p.pk for p in row.best}
                drawn = (
                    ' <span class="drawn-mark"><span aria-hidden="true">=</span> drawn</span>'
                    if row.drawn
                    else ""
                )
                out.append(
                    f'<tr class="round{" drawn" if row.drawn else ""}">'
                    f'<th scope="row" class="story-col"><span class="persona">'
                    f"{_esc(story.persona.slug)}</span> "
                    f'<a href="{stories}{int(story.pk)}/">{_esc(story.text)}</a>{drawn}</th>'
                    f'<td class="num w"><span class="visually-hidden">weight </span>'
                    f"{int(story.weight)}</td>"
                    + "".join(
                        _many_cell(by.get(p.pk), p.pk in best, row.shared, cells)
                        for p in cmp.products
                    )
                    + "</tr>"
                )
        out.append("</tbody>")
    return mark_safe("\n".join(out))  # every interpolated value is escaped or an int


@register.simple_tag
def compare_pick_list(products, picked) -> str:
    """The comparison's product picker: a checkbox per product, the ``picked`` ones (in their
    order) first and ticked, so that the form sends them in the order they are shown."""
    chosen = {p.pk for p in picked}
    ordered = [*picked, *(p for p in products if p.pk not in chosen)]
    return mark_safe(
        "".join(
            '<li><label><input type="checkbox" name="products"'
            f' value="{_esc(p.slug)}"{" checked" if p.pk in chosen else ""}> {_esc(p.name)}'
            "</label></li>"
            for p in ordered
        )
    )


@register.simple_tag
def compare_pairs(cmp, arena: str) -> str:
    """A link to the head-to-head of every pair of the compared products, in column order."""
    items = []
    for i, a in enumerate(cmp.products):
        for b in cmp.products[i + 1 :]:
            url = head_to_head_url(arena, a.slug, b.slug)
            items.append(f'<li><a href="{_esc(url)}">{_esc(a.name)} vs {_esc(b.name)}</a></li>')
    return mark_safe("".join(items))


@register.simple_tag
def data_license() -> str:
    """The licence the published data is offered under, as a ``rel="license"`` link."""
    return format_html(
        '<a rel="license" href="{}">{}</a>', settings.DATA_LICENSE_URL, settings.DATA_LICENSE_NAME
    )
