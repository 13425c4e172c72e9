"""A head-to-head as markdown (``/arenas/<arena>/vs/<a>-vs-<b>.md``): the tallies, each category's
rounds as a table, then every round's rationale for both sides."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from web.formats.markdown.links import Licence, Links
from web.formats.markdown.text import cell, day, document, inline, key_text, link, mark, table

if TYPE_CHECKING:
    from arena.selectors import CategoryBlock, Comparison


def head_to_head_markdown(*, arena: Any, cmp: Comparison, links: Links, licence: Licence) -> str:
    """``cmp`` (``head_to_head_get``): the tallies, each category's rounds as a table, then every
    round's rationale and evidence for both sides."""
    names = {cmp.a.pk: cmp.a.name, cmp.b.pk: cmp.b.name}
    out = [*_tally(arena, cmp, links, licence), "## Rounds", "", key_text(), ""]
    if not cmp.rows:
        out += ["No story where both products have a verdict other than n/a.", ""]
    for block in cmp.blocks:
        out += _category_rounds(block, cmp, names)
    if cmp.rows:
        out += [
            "## Why",
            "",
            "Each round's two rationales; each verdict links to its proof (rationale, evidence "
            "quotes with their sources, verdict history).",
            "",
        ]
    for block in cmp.blocks:
        for group in block.groups:
            for row in group.rows:
                out += [f"### Story {int(row.story.pk)}: {inline(row.story.text)}", ""]
                for c in (row.cell_a, row.cell_b):
                    out.append(f"- {_why(c, names[c.product_id], links)}")
                out += [""]
    return document(out)


def _tally(arena: Any, cmp: Comparison, links: Links, licence: Licence) -> list[str]:
    """The title, what a head-to-head is, and who leads on the whole tally."""
    slug, a, b, s = arena.slug, cmp.a, cmp.b, cmp.summary
    return [
        f"# {inline(a.name)} vs {inline(b.name)}",
        "",
        f"A head-to-head in the arena {link(arena.name, links.arena_md(slug))}: the two products "
        "story by story. A round is a story where neither verdict is n/a; the stronger verdict "
        "wins it (verdict first, then quality), equal ones draw.",
        "",
        f"- Web page: {links.head_to_head(slug, a.slug, b.slug)}",
        f"- {licence.line()}",
        "",
        "## Who leads",
        "",
        call_line(cmp),
        "",
        "## Tally",
        "",
        table(
            ["", cell(a.name), "Drawn", cell(b.name)],
            [
                ["Rounds won", str(s.won_a), str(s.drawn), str(s.won_b)],
                [
                    "Weighted (sum of the weights of rounds won)",
                    str(s.weighted_a),
                    "",
                    str(s.weighted_b),
                ],
            ],
            numeric={1, 2, 3},
        ),
        "",
        f"{inline(cmp.leader.name)} wins more rounds (who leads is above)."
        if cmp.leader
        else "Level on rounds.",
        "",
    ]


def _ranged(r: Any) -> str:
    if r.score is None:
        return "no PA Score"
    if r.low is None or r.high is None:
        return str(int(r.score))
    return f"{int(r.score)} ({int(r.low)}–{int(r.high)})"


def call_line(cmp: Comparison) -> str:
    """Who leads by the one rule (``scoring.pair_call`` on the PA Score ranges), as the page says
    it: ``**A leads**`` or ``**Too close to call**``, with both scores and their ranges."""
    a, b = cmp.ranged.get("a"), cmp.ranged.get("b")
    scores = (
        f"PA Score {inline(cmp.a.name)} {_ranged(a)} · {inline(cmp.b.name)} {_ranged(b)}"
        if a is not None and b is not None
        else "no PA Scores"
    )
    lead = cmp.call_leader
    if lead is None:
        return (
            "**Too close to call**: the score ranges overlap, so how the unverified cells turn "
            f"out could put either ahead ({scores})."
        )
    other = cmp.b if lead == cmp.a else cmp.a
    return (
        f"**{inline(lead.name)} leads**: its lowest possible score is above "
        f"{inline(other.name)}’s highest ({scores})."
    )


def _category_rounds(block: CategoryBlock, cmp: Comparison, names: dict[int, str]) -> list[str]:
    """One category's tally and its rounds as a table."""
    a, b = cmp.a, cmp.b
    tally = cmp.tallies.get(block.category.pk)
    out = [f"### {inline(block.category.name)}", ""]
    if tally is not None:
        out += [
            f"{inline(a.name)} {tally.won_a} – {tally.drawn} drawn – {tally.won_b} "
            f"{inline(b.name)} (weighted {tally.weighted_a} – {tally.weighted_b})",
            "",
        ]
    rows = []
    for group in block.groups:
        sub = cell(getattr(group.subgroup, "name", ""))
        for row in group.rows:
            rows.append(
                [
                    str(int(row.story.pk)),
                    cell(row.story.text),
                    sub,
                    str(int(row.story.weight)),
                    mark(row.cell_a.value),
                    mark(row.cell_b.value),
                    cell(names[row.winner.pk]) if row.winner else "draw",
                ]
            )
    head = ["ID", "Story", "Sub-group", "Weight", cell(a.name), cell(b.name), "Winner"]
    return out + [table(head, rows, numeric={0, 3}), ""]


def _why(c: Any, name: str, links: Links) -> str:
    """One side of a round: ``**Name** [full X9](proof.md), 3 quotes: rationale``."""
    quotes = len(c.evidence.all())
    text = f"**{inline(name)}** {link(mark(c.value), links.cell_md(c.pk))}"
    if not c.detail_published:
        return f"{text}: no published evidence (rationale and evidence not published)."
    text += f", {quotes} evidence quote{'' if quotes == 1 else 's'} ({c.backing.label})"
    if c.rationale_predates:
        text += f" (rationale written before the correction of {day(c.rationale_predates)})"
    return f"{text}: {inline(c.rationale) if c.rationale else 'no rationale given.'}"
