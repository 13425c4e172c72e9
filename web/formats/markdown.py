"""The site as markdown, for programs that read it (language-model agents, scripts): an arena, a
head-to-head, a cell's proof, the API's summary and ``/llms.txt``. Renderers only: each takes what
the selectors read for the HTML page (no query here) and the ``Links`` of the request's host, and
returns the text.

Every piece of text from the data (names, stories, rationales, quotes, URLs) goes through
``inline`` (or ``cell``, ``paragraphs``, ``url``) so it can never open a link, end a table cell,
start a heading or break a row: markdown marks are backslash-escaped, line breaks folded."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from django.urls import reverse

from stories.values import CellValue, Proof, Verdict

if TYPE_CHECKING:
    from arena.selectors import CellPage, Comparison, Leaderboard, Matrix

# ---------------------------------------------------------------- escaping

# Characters that mean something inline in CommonMark / GFM: escaped wherever they are.
_INLINE = re.compile(r"([\\`*_\[\]<>|&~#])")
# What makes a line a list item, a heading underline or an ordered item when it starts it.
_LEAD = re.compile(r"^([-+=]|\d{1,9}(?=[.)]))")
# Characters dropped outright: control characters (the data has none; a filter never hurts).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def inline(text: object) -> str:
    """``text`` on one line with every markdown mark escaped: safe as a table cell, link text,
    heading or list item. Runs of whitespace (line breaks among them) become one space."""
    words = _CONTROL.sub("", str(text)).split()
    out = _INLINE.sub(r"\\\1", " ".join(words))
    m = _LEAD.match(out)
    if m is not None:
        # ``-`` / ``+`` / ``=`` escaped; ``1.`` becomes ``1\.``
        mark = m.group(1)
        out = f"\\{out}" if not mark[0].isdigit() else f"{mark}\\{out[len(mark) :]}"
    return out


def trusted(text: object) -> str:
    """The site's own prose (the API schema's descriptions, written in markdown): kept as it is,
    on one line, with only ``|`` escaped so it can sit in a table cell."""
    return " ".join(_CONTROL.sub("", str(text)).split()).replace("|", "\\|")


cell = inline  # a table cell: ``|`` escaped and no line break, so the row keeps its columns


def paragraphs(text: object, prefix: str = "") -> str:
    """Text of one or more paragraphs (split on blank lines), each escaped as ``inline``, each
    line starting with ``prefix`` (``"> "`` for a quote)."""
    parts = re.split(r"\n[ \t]*\n", _CONTROL.sub("", str(text)).replace("\r", "\n"))
    lines = [inline(p) for p in parts]
    return f"\n{prefix.rstrip()}\n".join(prefix + line for line in lines if line)


def link(text: object, href: str) -> str:
    """``[text](href)``: the text escaped; ``href`` is a URL this site built (see ``url``)."""
    return f"[{inline(text)}]({href})"


_URL_SAFE = "/:?#@!$&'*+,;=%-._~"


def url(value: str) -> str | None:
    """A URL from the data, fit for a link's destination: http(s) only, every character that could
    end the destination (spaces, brackets, quotes) percent-encoded; ``None`` for anything else."""
    value = _CONTROL.sub("", value or "").strip()
    if not re.match(r"https?://[^\s/]", value, re.IGNORECASE):
        return None
    value = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", value)  # a lone ``%`` is no escape
    value = re.sub(r"(&#?[A-Za-z0-9]+);", r"\1%3B", value)  # nor is ``&amp;`` an entity here
    return quote(value, safe=_URL_SAFE)


def table(
    head: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Iterable[int] = ()
) -> str:
    """A GFM table. ``head`` and ``rows`` hold text already escaped (``cell``); the columns in
    ``numeric`` are right-aligned."""
    right = set(numeric)
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---:" if i in right else "---" for i in range(len(head))) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------- values


def day(value: date | datetime | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, datetime):
        return f"{value:%Y-%m-%d %H:%M} UTC"
    return f"{value:%Y-%m-%d}"


def score(value: int | None, rng: Sequence[int] | None = None) -> str:
    """``57 (49–61)``: a score out of 100 with its range; ``57`` without one; ``—`` none."""
    if value is None:
        return "—"
    if rng and rng[0] is not None and rng[1] is not None:
        return f"{int(value)} ({int(rng[0])}–{int(rng[1])})"
    return str(int(value))


def mark(value: CellValue) -> str:
    """A judgement in short: ``full T9`` (verdict, proof letter and quality out of 10),
    ``none 0``, ``n/a``."""
    return _mark(value.verdict, value.proof, value.quality)


@functools.lru_cache(maxsize=512)
def _mark(verdict: str, proof: str | None, quality: int | None) -> str:
    # (the same few dozen strings make up a whole matrix: 9,000 cells in the big arena)
    value = CellValue(verdict, proof, quality)
    if not value.applicable:
        return Verdict.NA.value
    return f"{value.verdict} {value.proof_letter}{value.quality}"


def key_text() -> str:
    """What ``mark`` writes, said once per document."""
    proofs = ", ".join(f"{p.letter} {p.value} ({p.meaning})" for p in Proof)
    return (
        "Verdicts are written `<verdict> <proof><quality>`: the verdict (full: clear evidence; "
        "partial: with caveats; disputed: evidence conflicts; none: no evidence found; n/a: the "
        f"story does not apply), the proof level's letter ({proofs}) and the quality out of 10. "
        "Example: `partial C5` is partial, vendor claim only, quality 5/10."
    )


# ---------------------------------------------------------------- addresses


@functools.lru_cache(maxsize=64)
def _prefix(name: str, *args: str) -> str:
    """The path of ``name`` with ``args`` and a last argument still to append (reversed once)."""
    return reverse(name, args=[*args, "0"])[: -len("0/")]


@dataclass(frozen=True)
class Links:
    """Absolute addresses on the host a request came to (``root``: ``https://host``, no slash)."""

    root: str

    def _abs(self, path: str) -> str:
        return f"{self.root}{path}"

    def arena(self, slug: str) -> str:
        return self._abs(reverse("arena-detail", args=[slug]))

    def arena_md(self, slug: str) -> str:
        return self._abs(reverse("arena-markdown", args=[slug]))

    def product(self, arena: str, product: str) -> str:
        return self._abs(f"{_prefix('product-detail', arena)}{product}/")

    def story(self, arena: str, story: int) -> str:
        return self._abs(f"{_prefix('story-detail', arena)}{int(story)}/")

    def head_to_head(self, arena: str, a: str, b: str) -> str:
        return self._abs(reverse("head-to-head", args=[arena, a, b]))

    def head_to_head_md(self, arena: str, a: str, b: str) -> str:
        return self._abs(reverse("head-to-head-markdown", args=[arena, a, b]))

    def cell(self, pk: int) -> str:
        return self._abs(reverse("cell-detail", args=[int(pk)]))

    def cell_md(self, pk: int) -> str:
        return self._abs(reverse("cell-markdown", args=[int(pk)]))

    def flag(self, pk: int) -> str:
        return self._abs(reverse("flag-create", args=[int(pk)]))

    def path(self, name: str, *args: object) -> str:
        return self._abs(reverse(name, args=list(args)))


@dataclass(frozen=True)
class Licence:
    name: str
    url: str

    def line(self, *, linked: bool = True) -> str:
        """``Data licence: [CC BY 4.0](…)``; not ``linked``: its address as code (llms.txt links
        markdown pages only)."""
        name = (
            link(self.name, url(self.url) or "")
            if linked
            else f"{inline(self.name)} (`{url(self.url)}`)"
        )
        return f"Data licence: {name}; cite the arena page."


# ---------------------------------------------------------------- an arena


def arena_markdown(
    *,
    arena: Any,
    board: Leaderboard,
    persona_results: Sequence,
    matrix: Matrix,
    pairs: Sequence[tuple],
    links: Links,
    licence: Licence,
) -> str:
    """An arena: what it is, the leaderboard, the best product per user type, the documented
    head-to-heads and the story matrix (one table per category and sub-group, every product a
    column). ``arena``: ``arena_get``; ``board``: ``arena_leaderboard`` (published weights);
    ``matrix``: ``arena_matrix`` over every product, nothing collapsed; ``pairs``:
    ``arena_documented_pairs``."""
    slug = arena.slug
    out = [f"# {inline(arena.name)}", ""]
    if arena.description:
        out += [paragraphs(arena.description), ""]
    out += [
        f"- Products: {len(matrix.products)}; user stories: {arena.story_count}; judged cells: "
        f"{arena.cell_count}",
        f"- Updated: {day(arena.updated)}; evidence as of: {day(arena.evidence_as_of)}",
        f"- Web page: {links.arena(slug)}",
        f"- {licence.line()}",
        "",
        "## Leaderboard",
        "",
    ]
    if board.rows:
        out += [
            "Ranked by PA Score (how much of what the stories ask the product does, weighted by "
            "each story's weight, 0–100; in brackets its range: how sure it is), ties by verified "
            "share then name. Persona columns: the same score over one user type's stories. "
            "Verified: verdicts whose proof was probed or confirmed, of those with evidence. "
            "Integrity: how well verdicts hold up under checking (0–100).",
            "",
        ]
        head = ["#", "Product", "PA Score", *(cell(p) for p in board.personas)]
        head += ["Verified", "Integrity", "Confidence"]
        rows = []
        for row in board.rows:
            p = row.product
            scores = row.persona_scores or {}
            verified = f"{int(row.verified)}/{int(row.with_evidence)}"
            if row.disputed:
                verified += f" · {int(row.disputed)} disputed"
            rows.append(
                [
                    _place(row),
                    link(p.name, links.product(slug, p.slug)),
                    score(row.pa_score, getattr(row, "pa_range", None)),
                    *(score(scores.get(s)) for s in board.personas),
                    verified,
                    score(row.integrity),
                    cell(row.confidence),
                ]
            )
        numeric = {0, 2, *range(3, 3 + len(board.personas))}
        out += [table(head, rows, numeric=numeric), ""]
    else:
        out += ["No scores stored yet.", ""]
    out += ["## Best by user type", ""]
    if persona_results:
        rows = []
        for r in persona_results:
            rows.append(
                [
                    cell(r.persona.slug),
                    cell(r.persona.label),
                    link(r.winner.name, links.product(slug, r.winner.slug)) if r.winner else "—",
                    score(r.winner_score),
                    link(r.runner_up.name, links.product(slug, r.runner_up.slug))
                    if r.runner_up
                    else "—",
                    score(r.runner_up_score),
                    str(int(r.story_count)),
                ]
            )
        head = ["User type", "Who", "Best", "Score", "Runner-up", "Score", "Stories"]
        out += [table(head, rows, numeric={3, 5, 6}), ""]
    else:
        out += ["No persona results stored yet.", ""]
    out += ["## Head-to-heads", ""]
    if pairs:
        out += [
            f"- {link(f'{a.name} vs {b.name}', links.head_to_head_md(slug, a.slug, b.slug))}"
            for a, b in pairs
        ]
    else:
        out += ["None documented yet."]
    out += ["", "## Story matrix", "", key_text(), ""]
    out += [
        f"Each story's page: `{links.story(slug, 0)[:-2]}<id>/`; each verdict's rationale and "
        f"evidence: the head-to-heads above, or the cell's proof "
        f"`{links.cell_md(0)[: -len('0.md')]}<cell id>.md` (cell ids: the JSON API's matrix, "
        f"`{links.path('api-arena-matrix', slug)}`).",
        "",
    ]
    names = [cell(p.name) for p in matrix.products]
    for block in matrix.blocks:
        out += [f"### {inline(block.category.name)}", ""]
        blurb = getattr(block.category, "blurb", "")
        if blurb:
            out += [paragraphs(blurb), ""]
        for group in block.groups:
            if group.subgroup is not None:
                out += [f"#### {inline(getattr(group.subgroup, 'name', ''))}", ""]
            rows = []
            for row in group.rows:
                story = row.story
                by = {c.product_id: c for c in row.cells}
                rows.append(
                    [
                        str(int(story.pk)),
                        cell(story.text),
                        cell(story.persona.slug),
                        str(int(story.weight)),
                        *(mark(by[p.pk].value) if p.pk in by else "—" for p in matrix.products),
                    ]
                )
            out += [table(["ID", "Story", "Persona", "Weight", *names], rows, numeric={0, 3}), ""]
    return "\n".join(out).rstrip() + "\n"


def _place(row: Any) -> str:
    """A leaderboard row's shown rank, ``=2`` when tied."""
    return f"={int(row.position)}" if row.tied else str(int(row.position))


# ---------------------------------------------------------------- a head-to-head


def head_to_head_markdown(*, arena: Any, cmp: Comparison, links: Links, licence: Licence) -> str:
    """``cmp`` (``head_to_head_get``): the tallies, each category's rounds as a table, then every
    round's rationale and evidence for both sides."""
    slug, a, b = arena.slug, cmp.a, cmp.b
    s = cmp.summary
    out = [
        f"# {inline(a.name)} vs {inline(b.name)}",
        "",
        f"A head-to-head in the arena {link(arena.name, links.arena_md(slug))}: the two products "
        "story by story. A round is a story where neither verdict is n/a; the stronger verdict "
        "wins it (verdict first, then quality), equal ones draw.",
        "",
        f"- Web page: {links.head_to_head(slug, a.slug, b.slug)}",
        f"- {licence.line()}",
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
        f"{inline(cmp.leader.name)} leads." if cmp.leader else "Level overall.",
        "",
        "## Rounds",
        "",
        key_text(),
        "",
    ]
    names = {a.pk: a.name, b.pk: b.name}
    if not cmp.rows:
        out += ["No story where both products have a verdict other than n/a.", ""]
    for block in cmp.blocks:
        tally = cmp.tallies.get(block.category.pk)
        out += [f"### {inline(block.category.name)}", ""]
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
        out += [table(head, rows, numeric={0, 3}), ""]
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
    return "\n".join(out).rstrip() + "\n"


def _why(c: Any, name: str, links: Links) -> str:
    """One side of a round: ``**Name** [full X9](proof.md), 3 quotes: rationale``."""
    quotes = len(c.evidence.all())
    text = f"**{inline(name)}** {link(mark(c.value), links.cell_md(c.pk))}"
    if not c.detail_published:
        return f"{text}: rationale and evidence not published."
    text += f", {quotes} evidence quote{'' if quotes == 1 else 's'}"
    if c.rationale_predates:
        text += f" (rationale written before the correction of {day(c.rationale_predates)})"
    return f"{text}: {inline(c.rationale) if c.rationale else 'no rationale given.'}"


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


# ---------------------------------------------------------------- a cell


def cell_markdown(*, page: CellPage, links: Links, licence: Licence) -> str:
    """A cell's proof (``cell_page_get``): its judgement, rationale, evidence, public verdict
    history and head-to-heads, and where to flag it."""
    c = page.cell
    story, product, arena = c.story, c.product, c.story.arena
    value = c.value
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
    out += [
        "",
        "## Verdict",
        "",
        f"- Verdict: {value.verdict}",
        f"- Proof: {value.proof} ({Proof(value.proof).meaning})" if value.proof else "- Proof: —",
        f"- Quality: {value.quality_text}",
    ]
    if value.applicable:
        out.append(f"- Evidence checked: {day(c.evidence_as_of)}")
    out += ["", "## Rationale", ""]
    if not c.detail_published:
        out += [
            "The rationale and evidence for this verdict are not published; the verdict, proof "
            "level and quality above are as published on the arena page.",
            "",
        ]
    else:
        out += [paragraphs(c.rationale) if c.rationale else "No rationale given.", ""]
        if c.rationale_predates:
            out += [f"(Written before the correction of {day(c.rationale_predates)}.)", ""]
        out += ["## Evidence", ""]
        quotes = list(c.evidence.all())
        out += [f"- {_quote(e)}" for e in quotes] or ["No evidence quotes."]
        out += [""]
    out += ["## Verdict history", ""]
    if page.changes:
        for ch in page.changes:
            line = (
                f"- {day(ch.changed_at)} · {inline(ch.get_kind_display())}: "
                f"{ch.old_value.label()} → {ch.new_value.label()}"
            )
            if ch.note:
                line += f" — {inline(ch.note)}"
            out.append(line)
    else:
        out.append("No change since the verdict was published.")
    out += ["", "## Head-to-heads with this story", ""]
    if page.head_to_heads:
        for h in page.head_to_heads:
            won = f"round to {inline(h.winner.name)}" if h.winner else "round drawn"
            out.append(
                f"- {link(f'{product.name} vs {h.other.name}', links.head_to_head_md(arena.slug, product.slug, h.other.slug))}"
                f": {inline(h.other.name)} {mark(h.other_cell.value)}, {won}"
            )
    else:
        out.append("None.")
    out += [
        "",
        "## Disagree?",
        "",
        f"Anyone can flag this verdict with a source (a moderator reviews every flag): the form at "
        f"{links.flag(c.pk)} (an HTML form).",
    ]
    return "\n".join(out).rstrip() + "\n"


def not_found_markdown(what: str) -> str:
    return f"# Not found\n\nNo {inline(what)} here. The list of arenas: see /llms.txt.\n"


# ---------------------------------------------------------------- /llms.txt


def llms_txt(
    *,
    site: str,
    arenas: Sequence,
    pairs: Mapping[int, Sequence[tuple]],
    links: Links,
    licence: Licence,
    raw: dict[str, str],
) -> str:
    """``/llms.txt`` (llmstxt.org): the site in a paragraph, each arena's markdown view with its
    size and leader, the documented head-to-heads, the API's summary. Every link is a markdown
    page of this site; other resources (``raw``: name → address) are named as code."""
    out = [
        f"# {inline(site)}",
        "",
        "> Evidence-backed comparisons of software products: each arena judges every product on "
        "every user story, and every verdict links to its proof.",
        "",
        "An arena lists products and user stories (each written for a user type, or persona, "
        "with a weight). Every product gets a verdict on every story: full, partial, disputed, "
        "none or n/a, with a proof level (probed: tested by us; community: users back it; "
        "claimed: vendor claim only; contradicted: evidence disagrees; auth-gated: a sign-in "
        "wall) and a quality out of 10, backed by a rationale and quoted evidence with sources. "
        "From the verdicts each product gets a PA Score (0–100, how much of what the stories ask "
        "it does, weighted), with a range saying how sure it is, a score per user type, a "
        "verified share and an integrity score; the leaderboard ranks by them, and a "
        "head-to-head compares two products story by story.",
        "",
        "Anyone can flag a verdict they think is wrong, with a source, from the verdict's proof "
        "page (an HTML form; each cell's markdown view gives its address). Moderators review "
        "every flag; upheld corrections appear in the verdict's public history. "
        f"{licence.line(linked=False)}",
        "",
        "## Arenas",
        "",
    ]
    for a in arenas:
        line = (
            f"- {link(a.name, links.arena_md(a.slug))}: {int(a.product_count)} products × "
            f"{int(a.story_count)} stories"
        )
        if a.leader_name:
            line += f", leader {inline(a.leader_name)}"
        out.append(line)
    if not arenas:
        out.append("- None yet.")
    out += ["", "## Head-to-heads", ""]
    listed = 0
    for a in arenas:
        for x, y in pairs.get(a.pk, ()):
            out.append(
                f"- {link(f'{x.name} vs {y.name}', links.head_to_head_md(a.slug, x.slug, y.slug))}"
                f" ({inline(a.name)})"
            )
            listed += 1
    if not listed:
        out.append("- None documented yet.")
    out += [
        "",
        "## API",
        "",
        f"- {link('API summary', links.path('api-markdown'))}: every endpoint of the read-only "
        "JSON API (and the moderators' flag endpoints), its parameters and response fields",
        "",
        "## Not markdown",
        "",
        "Named here, not linked: the raw OpenAPI document and other data formats.",
        "",
    ]
    out += [f"- {inline(name)}: `{address}`" for name, address in raw.items()]
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------- the API


def _type(schema: dict) -> str:
    """A schema's type in a few characters: ``string (date)``, ``[LeaderboardRow]``, ``a | b``."""
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    for many in ("oneOf", "anyOf", "allOf"):
        if many in schema:
            return " or ".join(_type(s) for s in schema[many])
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type", "object")
    if kind == "array":
        return f"[{_type(schema.get('items', {}))}]"
    if kind == "object" and "additionalProperties" in schema:
        return f"{{name: {_type(schema['additionalProperties'])}}}"
    fmt = schema.get("format")
    return f"{kind} ({fmt})" if fmt else str(kind)


def _first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return m.group(1) if m else text


def api_markdown(*, schema: dict, links: Links, raw: dict[str, str]) -> str:
    """The OpenAPI ``schema`` (drf-spectacular's) in short: each path and method with its summary,
    parameters and responses, then each schema's fields."""
    info = schema.get("info", {})
    out = [
        f"# {trusted(info.get('title', 'API'))} {trusted(info.get('version', ''))}".rstrip(),
        "",
        trusted(info.get("description", "")),
        "",
        "Reads are anonymous and cached (ETag, 304 on If-None-Match); the flag endpoints are for "
        "moderators. The full OpenAPI document: "
        + ", ".join(f"`{address}` ({inline(name)})" for name, address in raw.items())
        + ".",
        "",
        "## Endpoints",
        "",
    ]
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            if method not in ("get", "post", "put", "patch", "delete", "head"):
                continue
            out += [f"### {method.upper()} `{path}`", ""]
            summary = op.get("summary") or op.get("description") or ""
            if summary:
                out += [trusted(summary), ""]
            params = op.get("parameters", [])
            if params:
                rows = [
                    [
                        f"`{p.get('name', '')}`",
                        cell(p.get("in", "")),
                        "yes" if p.get("required") else "no",
                        trusted(_type(p.get("schema", {}))),
                        trusted(p.get("description", "")),
                    ]
                    for p in params
                ]
                out += [table(["Parameter", "In", "Required", "Type", "What"], rows), ""]
            body = op.get("requestBody", {}).get("content", {})
            if body:
                bodies = sorted({_type(c.get("schema", {})) for c in body.values()})
                out += [f"Request body: {trusted(', '.join(bodies))}", ""]
            responses = []
            for status, answer in op.get("responses", {}).items():
                content = answer.get("content", {})
                kinds = sorted({_type(c.get("schema", {})) for c in content.values()})
                what = _first_sentence(answer.get("description", ""))
                text = f"- {status}: {trusted(', '.join(kinds)) or 'no body'}"
                responses.append(text + (f" — {trusted(what)}" if what else ""))
            out += ["Responses:", "", *responses, ""]
    out += ["## Schemas", ""]
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        out += [f"### {inline(name)}", ""]
        props = component.get("properties")
        if not props:
            out += [trusted(_type(component)), ""]
            continue
        required = set(component.get("required", []))
        rows = [
            [
                f"`{field}`",
                trusted(_type(spec))
                + (" or null" if isinstance(spec, dict) and spec.get("nullable") else ""),
                "yes" if field in required else "no",
                trusted(
                    _first_sentence(spec.get("description", "")) if isinstance(spec, dict) else ""
                ),
            ]
            for field, spec in props.items()
        ]
        out += [table(["Field", "Type", "Always", "What"], rows), ""]
    return "\n".join(out).rstrip() + "\n"
