"""A cell's proof as markdown (``/cells/<cell>.md``): its judgement, rationale, evidence, public
verdict history, disputes and head-to-heads, and where to flag it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.text import source_ids
from stories.values import Proof
from web.formats.markdown.links import Licence, Links
from web.formats.markdown.text import day, document, inline, link, mark, paragraphs, url

if TYPE_CHECKING:
    from arena.selectors import CellPage
    from stories.models import Cell


def cell_markdown(*, page: CellPage, links: Links, licence: Licence) -> str:
    """A cell's proof (``cell_page_get``): its judgement, rationale, evidence, public verdict
    history and head-to-heads, and where to flag it."""
    c = page.cell
    return document(
        [
            *_about(c, links, licence),
            *_verdict(c),
            f"- Backed by: {page.backing_text}",
            "",
            *_rationale(c),
            *_sources(page),
            *_history(page),
            *_disputes(page),
            *_head_to_heads(page, links),
            "## Disagree?",
            "",
            f"Anyone can flag this verdict with a source (a moderator reviews every flag): the form "
            f"at {links.flag(c.pk)} (an HTML form).",
        ]
    )


def _about(c: Cell, links: Links, licence: Licence) -> list[str]:
    """The title and where the cell stands: arena, product, story, category, user type."""
    story, product, arena = c.story, c.product, c.story.arena
    where = inline(story.category.name)
    if story.subgroup is not None:
        where += f" › {inline(story.subgroup.name)}"
    out = [
        f"# {inline(product.name)} on “{inline(story.text)}”",
        "",
        f"- Arena: {link(arena.name, links.arena_md(arena.slug))}",
        f"- Product: {link(product.name, links.product(arena.slug, product.slug))}",
        f"- Story {int(story.pk)}: {link(story.text, links.story(arena.slug, story.pk))}",
        f"- Category: {where}; user type: {inline(story.persona.label)} "
        f"({inline(story.persona.slug)}); weight {int(story.weight)}",
        f"- Web page: {links.cell(c.pk)}",
        f"- {licence.line()}",
    ]
    retired = story.retired_at or product.retired_at
    if retired:
        out.append(
            f"- Kept on record only: the {'story' if story.retired_at else 'product'} left the "
            f"arena on {day(retired)}; this verdict no longer counts in any score."
        )
    return out + [""]


def _verdict(c: Cell) -> list[str]:
    value = c.value
    out = [
        "## Verdict",
        "",
        f"- Verdict: {value.verdict}",
        f"- Proof: {value.proof} ({Proof(value.proof).meaning})" if value.proof else "- Proof: —",
        f"- Quality: {value.quality_text}",
    ]
    if value.applicable:
        out.append(f"- Evidence checked: {day(c.evidence_as_of)}")
    return out + [""]


def _rationale(c: Cell) -> list[str]:
    """The rationale and the evidence quotes, or that they are not published."""
    out = ["## Rationale", ""]
    if not c.detail_published:
        return out + [
            "The rationale and evidence for this verdict are not published; the verdict, proof "
            "level and quality above are as published on the arena page.",
            "",
        ]
    out += [paragraphs(c.rationale) if c.rationale else "No rationale given.", ""]
    if c.rationale_predates:
        out += [f"(Written before the correction of {day(c.rationale_predates)}.)", ""]
    quotes = [f"- {_quote(e)}" for e in c.evidence.all()]
    return out + ["## Evidence", "", *(quotes or ["No evidence quotes."]), ""]


def _sources(page: CellPage) -> list[str]:
    """Each source id the published detail cites: its entry in the arena's source list, or that
    the list does not publish it (an unresolved reference, never a link)."""
    c = page.cell
    if not c.detail_published:
        return []
    cited = source_ids(" ".join([c.rationale, *(e.source for e in c.evidence.all())]))
    if not cited:
        return []
    out = ["## Sources cited", ""]
    for key in cited:
        s = page.sources.get(key)
        href = url(s.url) if s is not None else None
        if s is None or href is None:
            out.append(f"- {inline(key)}: unresolved (the arena's source list does not publish it)")
            continue
        line = f"- {inline(key)}: {link(s.title or s.url, href)}"
        out.append(line + (f", accessed {day(s.accessed)}" if s.accessed else ""))
    return out + [""]


def _quote(e: Any) -> str:
    """``[source] “quote” (link), checked 2026-09-16``."""
    text = f"\\[{inline(e.source)}\\] “{inline(e.quote)}”"
    href = url(getattr(e, "url", ""))
    if href:
        text += f" ({link('source', href)})"
    checked = getattr(e, "checked_on", None)
    if checked is not None:
        text += f", checked {day(checked)}"
    return text


def _history(page: CellPage) -> list[str]:
    out = ["## Verdict history", ""]
    for ch in page.changes:
        line = (
            f"- {day(ch.changed_at)} · {inline(ch.get_kind_display())}: "
            f"{ch.old_value.label()} → {ch.new_value.label()}"
        )
        if ch.direction is not None:
            line += f" ({ch.direction.label})"
        if ch.note:
            line += f" — {inline(ch.note)}"
        out.append(line)
    if not page.changes:
        out.append("No change since the verdict was published.")
    return out + [""]


def _disputes(page: CellPage) -> list[str]:
    """Each dispute on the cell, as the web page shows it (``arena.selectors.disputes``)."""
    out = ["## Disputes", ""]
    for d in page.disputes:
        if d.pending:
            line = f"- Under review since {day(d.opened_at)}"
        else:
            line = f"- {d.decision.capitalize()} on {day(d.decided_at)}"
        line += f" · {d.flag_count} flag{'' if d.flag_count == 1 else 's'}: "
        line += inline("; ".join(d.reasons))
        if d.proposals:
            line += f" · proposed: {inline('; '.join(d.proposals))}"
        if d.affiliated:
            line += " · filed by the vendor"
        if d.change is not None and d.direction is not None:
            line += (
                f" · corrected {d.change.old_value.label()} → {d.change.new_value.label()}"
                f" ({d.direction.label})"
            )
        if d.note:
            line += f" — {inline(d.note)}"
        out.append(line)
    if not page.disputes:
        out.append("No one has flagged this verdict.")
    return out + [""]


def _head_to_heads(page: CellPage, links: Links) -> list[str]:
    """The head-to-heads of the cell's product on this story: the rival's verdict, who won."""
    out = ["## Head-to-heads with this story", ""]
    product, arena = page.cell.product, page.cell.story.arena
    for h in page.head_to_heads:
        won = f"round to {inline(h.winner.name)}" if h.winner else "round drawn"
        href = links.head_to_head_md(arena.slug, product.slug, h.other.slug)
        out.append(
            f"- {link(f'{product.name} vs {h.other.name}', href)}"
            f": {inline(h.other.name)} {mark(h.other_cell.value)}, {won}"
        )
    if not page.head_to_heads:
        out.append("None.")
    return out + [""]
