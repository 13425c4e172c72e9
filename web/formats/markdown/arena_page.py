"""An arena as markdown (``/arenas/<arena>.md``): what it is, the leaderboard, the best product per
user type, the documented head-to-heads and the story matrix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena import scoring
from arena.scoring import Call
from arena.selectors.calls import call_words, next_calls, persona_call
from stories.freshness import updated_on
from web.formats.markdown.links import Licence, Links
from web.formats.markdown.text import (
    cell,
    day,
    document,
    inline,
    key_text,
    link,
    mark,
    paragraphs,
    score,
    table,
)

if TYPE_CHECKING:
    from arena.models import PersonaResult, ProductScore
    from arena.selectors import CategoryBlock, Leaderboard, Matrix
    from products.models import Product

LEADERBOARD_KEY = (
    "Ranked by PA Score (how much of what the stories ask the product does, weighted by each "
    "story's weight, 0–100; in brackets its range: how sure it is), ties by verified share then "
    "name. Persona columns: the same score over one user type's stories. Verified: verdicts whose "
    "proof was probed or confirmed, of those with evidence. Integrity: how well verdicts hold up "
    "under checking (0–100). Could rank: the ranks the product could take if its unverified "
    "cells turned out either way. Next: whether it leads the next row (its lowest possible PA "
    "Score above the next one's highest) or is too close to call. Call (best by user type): the "
    "same rule on the winner's and the runner-up's scores over that user type's stories."
)


def arena_markdown(
    *,
    arena: Any,
    board: Leaderboard,
    persona_results: Sequence[PersonaResult],
    matrix: Matrix,
    pairs: Sequence[tuple[Product, Product]],
    links: Links,
    licence: Licence,
) -> str:
    """An arena: what it is, the leaderboard, the best product per user type, the documented
    head-to-heads and the story matrix (one table per category and sub-group, every product a
    column). ``arena``: ``arena_get`` (with its counts); ``board``: ``arena_leaderboard``
    (published weights); ``matrix``: ``arena_matrix`` over every product, nothing collapsed;
    ``pairs``: ``arena_documented_pairs``."""
    slug = arena.slug
    return document(
        [
            *_about(arena, matrix, links, licence),
            *_leaderboard(board, slug, links),
            *_best_by_user_type(persona_results, slug, links, board.rows),
            *_head_to_heads(pairs, slug, links),
            *_story_matrix(matrix, slug, links),
        ]
    )


def _about(arena: Any, matrix: Matrix, links: Links, licence: Licence) -> list[str]:
    out = [f"# {inline(arena.name)}", ""]
    if arena.description:
        out += [paragraphs(arena.description), ""]
    return out + [
        f"- Products: {len(matrix.products)}; user stories: {arena.story_count}; judged cells: "
        f"{arena.cell_count}"
        + (f" ({arena.na_count} of them not applicable)" if arena.na_count else ""),
        f"- Updated: {day(updated_on(arena.updated, arena.last_change))}; {_evidence_dates(arena)}",
        f"- Web page: {links.arena(arena.slug)}",
        f"- {licence.line()}",
        "",
    ]


def _evidence_dates(arena: Any) -> str:
    """How fresh the judged cells' evidence is, as the web page says it (``arena_get``)."""
    oldest, newest = arena.evidence_oldest, arena.evidence_newest
    if oldest == newest:
        return f"evidence as of: {day(newest)}"
    return f"evidence checked: {day(oldest)} to {day(newest)}"


def _leaderboard(board: Leaderboard, slug: str, links: Links) -> list[str]:
    out = ["## Leaderboard", ""]
    if not board.rows:
        return out + ["No scores stored yet.", ""]
    head = ["#", "Product", "PA Score", *(cell(p) for p in board.personas)]
    head += ["Verified", "Integrity", "Confidence", "Could rank", "Next"]
    calls = next_calls(board.rows)
    rows = [
        _leaderboard_row(row, board.personas, slug, links, call)
        for row, call in zip(board.rows, calls, strict=True)
    ]
    numeric = {0, 2, *range(3, 3 + len(board.personas))}
    return out + [LEADERBOARD_KEY, "", table(head, rows, numeric=numeric), ""]


def _leaderboard_row(
    row: ProductScore, personas: Sequence[str], slug: str, links: Links, call: Call | None
) -> list[str]:
    scores = row.persona_scores or {}
    verified = f"{int(row.verified)}/{int(row.with_evidence)}"
    share = scoring.evidence_share(row.published_evidence, row.judged)
    if share is not None:
        verified += f" · {int(row.published_evidence)}/{int(row.judged)} with published evidence"
        verified += f" ({share}%)"
    if row.disputed:
        verified += f" · {int(row.disputed)} disputed"
    integrity = score(row.integrity)
    if n := int(row.upheld_in_favour or 0):  # (they never lowered it)
        integrity += f" · {n} correction{'s' if n > 1 else ''} in its favour"
    return [
        _place(row),
        link(row.product.name, links.product(slug, row.product.slug)),
        score(row.pa_score, getattr(row, "pa_range", None)),
        *(score(scores.get(s)) for s in personas),
        verified,
        integrity,
        cell(row.confidence),
        _could_rank(row),
        call_words(call),
    ]


def _place(row: Any) -> str:
    """A leaderboard row's shown rank, ``=2`` when tied (``position`` and ``tied`` are set by the
    leaderboard read, not stored)."""
    return f"={int(row.position)}" if row.tied else str(int(row.position))


def _could_rank(row: Any) -> str:
    """The ranks the product could take (``1–4``; its own when settled, ``—`` not stored)."""
    best, worst = getattr(row, "rank_best", None), getattr(row, "rank_worst", None)
    if best is None or worst is None:
        return "—"
    return str(int(best)) if best == worst else f"{int(best)}–{int(worst)}"


def _best_by_user_type(
    persona_results: Sequence[PersonaResult], slug: str, links: Links, rows: Sequence[Any]
) -> list[str]:
    out = ["## Best by user type", ""]
    if not persona_results:
        return out + ["No persona results stored yet.", ""]

    def product(p: Product | None) -> str:
        return link(p.name, links.product(slug, p.slug)) if p else "—"

    scores = {row.product_id: row for row in rows}
    table_rows = [
        [
            cell(r.persona.slug),
            cell(r.persona.label),
            product(r.winner),
            score(r.winner_score),
            product(r.runner_up),
            score(r.runner_up_score),
            call_words(persona_call(r, scores)),
            str(int(r.story_count)),
        ]
        for r in persona_results
    ]
    head = ["User type", "Who", "Best", "Score", "Runner-up", "Score", "Call", "Stories"]
    return out + [table(head, table_rows, numeric={3, 5, 7}), ""]


def _head_to_heads(pairs: Sequence[tuple[Product, Product]], slug: str, links: Links) -> list[str]:
    items = [
        f"- {link(f'{a.name} vs {b.name}', links.head_to_head_md(slug, a.slug, b.slug))}"
        for a, b in pairs
    ]
    return ["## Head-to-heads", "", *(items or ["None documented yet."]), ""]


def _story_matrix(matrix: Matrix, slug: str, links: Links) -> list[str]:
    out = [
        "## Story matrix",
        "",
        key_text(),
        "",
        f"Each story's page: `{links.story(slug, 0)[:-2]}<id>/`; each verdict's rationale and "
        f"evidence: the head-to-heads above, or the cell's proof "
        f"`{links.cell_md(0)[: -len('0.md')]}<cell id>.md` (cell ids: the JSON API's matrix, "
        f"`{links.path('api-arena-matrix', slug)}`).",
        "",
    ]
    head = ["ID", "Story", "Persona", "Weight", *(cell(p.name) for p in matrix.products)]
    for block in matrix.blocks:
        out += _matrix_block(block, matrix.products, head)
    return out


def _matrix_block(block: CategoryBlock, products: Sequence[Product], head: list[str]) -> list[str]:
    """A category's stories, one table per sub-group, a column per product."""
    out = [f"### {inline(block.category.name)}", ""]
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
                    *(mark(by[p.pk].value) if p.pk in by else "—" for p in products),
                ]
            )
        out += [table(head, rows, numeric={0, 3}), ""]
    return out
