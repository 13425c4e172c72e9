"""A judged cell as a card (the story and head-to-head pages show dozens to hundreds of them): its
badge, rationale, evidence quotes, proof link and flag control."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from arena.models import Source
from core.text import SOURCE_ID_RE
from stories.values import Backing, CellValue, backing_of
from web.pages import links
from web.pages.badges import card_badge
from web.pages.freshness import NO_DATE, AsOf, checked_html, freshness_now
from web.pages.markup import esc
from web.pages.shapes import CardCell, Quote, ShownCell
from web.pages.sources import refs_html

# An unpublished cell's one quiet line (no card, no proof link: its page has nothing more to show).
_UNPUBLISHED = (
    '<span class="unpublished-note backing backing-none">· no published evidence'
    " (rationale not published)</span>"
)
NO_SOURCES: Mapping[str, Source] = {}


def card_backing(cell: CardCell) -> tuple[Backing, int]:
    """What backs a card's cell (``stories.values.backing_of``) and its number of quotes."""
    quotes = len(list(cell.evidence.all())) if cell.detail_published else 0
    backing = backing_of(published=cell.detail_published, rationale=cell.rationale, quotes=quotes)
    return backing, quotes


def backing_html(backing: Backing, quotes: int) -> str:
    """What backs a cell, in words: ``Backed by 2 quotes with sources``."""
    return (
        f'<p class="backing backing-{backing.value}">Backed by {esc(backing.describe(quotes))}</p>'
        if backing.published
        else f'<p class="backing backing-none">{esc(backing.describe())}</p>'
    )


def evidence_html(e: Quote, sources: Mapping[str, Source] = NO_SOURCES) -> str:
    """One evidence quote: ``[source] “quote”``, its link when it has one (``rel="nofollow ugc
    noopener"``: visitors' sources are accepted from flags) and the day it was checked. A source
    that is a source id links to the arena's source list entry, or shows as unresolved."""
    source = refs_html(e.source, sources) if SOURCE_ID_RE.search(e.source) else esc(e.source)
    out = f'<li><span class="source">[{source}]</span> <q>{esc(e.quote)}</q>'
    url = getattr(e, "url", "")
    if url:
        out += (
            f' <a class="evidence-link" href="{esc(url)}" rel="nofollow ugc noopener">'
            f'source <span aria-hidden="true">↗</span></a>'
        )
    checked = getattr(e, "checked_on", None)
    if checked is not None:
        out += (
            # one element, not a span around a time: an evidence list repeats it hundreds of times
            f' <time class="evidence-checked" datetime="{checked:%Y-%m-%d}">'
            f"checked {checked:%Y-%m-%d}</time>"
        )
    return out + "</li>"


def evidence_item(e: Quote, sources: Mapping[str, Source] = NO_SOURCES) -> SafeString:
    """One evidence quote of a cell page (see ``evidence_html``)."""
    return mark_safe(evidence_html(e, sources))


def flag_control(pk: int, label: str) -> str:
    """The small "⚑ flag" control beside a verdict: a link to the flag page, which ``site.js``
    opens in the flag dialog instead. ``label``: the product and verdict, escaped."""
    return (
        f'<a class="flag-control" href="{links.cells_prefix()}{pk}/flag/"'
        f' aria-label="Flag this verdict: {label}">⚑ flag</a>'
    )


def flag_label(cell: ShownCell, story: str = "") -> str:
    """What a cell's flag control names, escaped: ``Inngest on “Resume after a crash”, full``
    (``Inngest, full`` without ``story``, the story's text; a long one is cut short)."""
    on = f" on “{story_name(story)}”" if story else ""
    return esc(f"{cell.product.name}{on}, {cell.verdict}")


def story_name(text: str) -> str:
    """A story's text as a control's accessible name quotes it: whole when short, else cut at a
    word before ``STORY_NAME_MAX`` characters, with an ellipsis (not escaped)."""
    if len(text) <= STORY_NAME_MAX:
        return text
    cut = text[:STORY_NAME_MAX].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut}…"


# The longest story text a control's accessible name quotes whole.
STORY_NAME_MAX = 60


def _day(moment: datetime) -> str:
    """A stored moment's day, ``2026-11-30``, in the site's time zone."""
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)
    return f"{moment:%Y-%m-%d}"


def _correction_note(cell: CardCell) -> str:
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


def _checked(cell: CardCell) -> str:
    """How old the cell's evidence is; nothing for n/a (or a stand-in that does not read it)."""
    as_of: AsOf = getattr(cell, "evidence_as_of", NO_DATE)
    if as_of is NO_DATE or not CellValue(cell.verdict).applicable:
        return ""
    return checked_html(cell.verdict, as_of, freshness_now())


def card_html(
    cell: CardCell,
    name: str,
    cells: str,
    sources: Mapping[str, Source] = NO_SOURCES,
    story: str = "",
) -> str:
    """See ``cell_card``; ``name`` escaped, ``cells``: the proof pages' URL prefix, ``story``: the
    story's text, which the flag control names."""
    pk = int(cell.pk)
    badge, evidenced = card_badge(cell.verdict, cell.proof, cell.quality)
    label = flag_label(cell, story)
    checked = _checked(cell)
    if not cell.detail_published:
        checked = f' <span class="cell-checked">· {checked}</span>' if checked else ""
        return (
            f'<div class="cell-line" id="cell-{pk}"><strong class="cell-name">{name}</strong>'
            f" {badge}{checked} {_UNPUBLISHED} {flag_control(pk, label)}</div>"
        )
    out = [
        f'<article class="cell-card" id="cell-{pk}" aria-label="{name}: {esc(cell.verdict)}">'
        f'<p class="cell-verdict"><strong class="cell-name">{name}</strong> {badge}</p>'
    ]
    if checked:
        out.append(f'<p class="cell-checked">Evidence {checked}</p>')
    out.append(backing_html(*card_backing(cell)))
    out.append(_correction_note(cell))
    if cell.rationale:
        out.append(f'<p class="rationale">{refs_html(cell.rationale, sources)}</p>')
    quotes = cell.evidence.all()
    if quotes:
        out.append('<ul class="evidence" aria-label="Evidence">')
        out.extend(evidence_html(e, sources) for e in quotes)
        out.append("</ul>")
    url = f"{cells}{pk}/"
    hidden = f'<span class="visually-hidden"> for {name}</span>'
    link = (
        f'<a class="proof-link" href="{url}">proof <span aria-hidden="true">↗</span>{hidden}</a>'
        if evidenced
        else f'<a class="proof-link quiet" href="{url}">details{hidden}</a>'
    )
    out.append(f'<div class="cell-actions">{link}{flag_control(pk, label)}</div></article>')
    return "".join(out)


def cell_card(
    cell: CardCell, name: str, sources: Mapping[str, Source] = NO_SOURCES, story: str = ""
) -> SafeString:
    """One judged cell as a card: ``name`` (its heading) and its badge, its rationale and evidence
    quotes (``cell.evidence.all()``, loaded beforehand), the link to its proof page and its flag
    control (named for the product and ``story``, the story's text); a cell whose detail is not
    published is one quiet line (name, badge, flag control)."""
    # every interpolated value is escaped or an int
    return mark_safe(card_html(cell, esc(name), links.cells_prefix(), sources, story))
