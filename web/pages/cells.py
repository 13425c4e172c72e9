"""A judgement, a cell and its evidence as the pages write them (``arena/_cell.html`` draws them
from ``stories.values.CellValue``): badges, the legend, evidence ages and cards."""

from __future__ import annotations

import functools
import html
from collections.abc import Mapping
from datetime import date

from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.timezone import localdate

from arena.models import Persona, Source
from arena.selectors.cells import CellLine
from core.text import split_source_ids
from stories import freshness
from stories.models import Cell
from stories.models import Evidence as EvidenceRow
from stories.values import Backing, CellValue, Proof, Verdict
from web.pages import links

NO_SOURCES: Mapping[str, Source] = {}
STORY_NAME_MAX = 60  # the longest story text a control's accessible name quotes whole


@functools.lru_cache(maxsize=8192)  # a render escapes a few hundred texts dozens of times each
def esc(text: str) -> str:
    return html.escape(text)


def persona_name(persona: Persona) -> str:
    return persona.label or persona.slug


def proof_mark(proof: str | None) -> str:
    return Proof(proof).mark if proof else ""


def verdict_class(verdict: str) -> str:
    return "v-na" if verdict == Verdict.NA else f"v-{verdict}"


def verdict(cell: CellValue | CellLine | Cell, words: bool = False) -> SafeString:
    """A cell's badge, ``✓ full C 8/10``; with ``words`` the proof's name, its meaning on hover."""
    return _badge(cell.verdict, cell.proof or None, cell.quality, words)


@functools.lru_cache(maxsize=512)
def _badge(verdict: str, proof: str | None, quality: int | None, words: bool) -> SafeString:
    # the same few dozen badges make up a page of hundreds: each is rendered once
    value = CellValue(verdict, proof, quality)
    return render_to_string("arena/_cell.html#badge", {"v": value, "words": words})


@functools.lru_cache(maxsize=512)
def matrix_badge(verdict: str, proof: str | None, quality: int | None) -> str:
    """A matrix cell's short badge, ``<i>✓</i> full X 9/10`` (its ``<td>`` carries the class)."""
    value = CellValue(verdict, proof, quality)
    if not value.applicable:
        return esc(value.verdict)
    letter = f" {proof_mark(value.proof)}" if value.proof else ""
    return f'<i aria-hidden="true">{value.symbol}</i> {esc(value.verdict)}{letter} {value.quality_text}'


# The matrix filter's verdict menu, ``✓ full`` … ``n/a``.
VERDICT_CHOICES = [(v.value, f"{v.symbol} {v.label}" if v.symbol else v.label) for v in Verdict]


type Now = tuple[date, int]  # today and the stale age


def freshness_now() -> Now:
    """Read once per page part: a page shows hundreds of cells."""
    return freshness.today(), freshness.stale_days()


def stale_title(as_of: date | None, today: date) -> str:
    if as_of is None:
        return "stale: no check date"
    return f"stale: evidence {freshness.age_text(as_of, today=today)}, {as_of:%Y-%m-%d}"


def arena_updated(arena: object) -> date | None:
    """The published pages' date, or the day of a later change of a verdict (``last_change``)."""
    published, changed = getattr(arena, "updated", None), getattr(arena, "last_change", None)
    return published if changed is None else freshness.newest(published, localdate(changed))


def refs(text: str, sources: Mapping[str, Source] = NO_SOURCES) -> list[dict[str, object]]:
    """``text`` in pieces; a source id (``is_id``) links to its source when the list has one."""
    return [
        {"text": piece, "is_id": is_id, "source": sources.get(piece) if is_id else None}
        for piece, is_id in split_source_ids(text)
    ]


def age(verdict: str, as_of: date | None, now: Now | None = None) -> dict[str, object]:
    """How old a cell's newest evidence is: ``checked 75 days ago``, its day, whether stale."""
    today, days = now or freshness_now()
    stale = freshness.is_stale(verdict, as_of, today=today, days=days)
    return {
        "text": freshness.age_text(as_of, today=today),
        "as_of": as_of,
        "stale": stale,
        "days": days,
    }


def story_name(text: str) -> str:
    """A story's text as a control's accessible name quotes it, cut at a word when long."""
    if len(text) <= STORY_NAME_MAX:
        return text
    cut = text[:STORY_NAME_MAX].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut}…"


def card(
    cell: Cell, sources: Mapping[str, Source] = NO_SOURCES, story: str = "", now: Now | None = None
) -> dict[str, object]:
    """A judged cell as the story, cell and head-to-head pages show it (``_cell.html#card``):
    ``cell`` read ``with_backing()``, its evidence loaded beforehand."""
    published = cell.detail_published
    quotes: list[EvidenceRow] = list(cell.evidence.all()) if published else []
    backing = Backing(cell.backing)  # type: ignore[attr-defined]  # (an annotation)
    on = f" on “{story_name(story)}”" if story else ""
    return {
        "cell": cell,
        "age": None if cell.verdict == Verdict.NA else age(cell.verdict, cell.evidence_as_of, now),
        "backing": backing,
        "backing_text": backing.describe(len(quotes)),  # ``3 quotes with sources``
        "rationale": refs(cell.rationale, sources) if published else [],
        "evidence": [(e, refs(e.source, sources)) for e in quotes],  # with the source in pieces
        "flag_label": f"{cell.product.name}{on}, {cell.verdict}",  # ``Inngest on “…”, full``
        "url": f"{links.cells_prefix()}{int(cell.pk)}/",  # its proof page
    }
