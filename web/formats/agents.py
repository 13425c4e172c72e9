"""The site for programs: ``/llms.txt`` and markdown views via templates/markdown/."""

import re
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_safe

from arena.scoring.tally import evidence_share
from arena.selectors.arenas import (
    arena_category_list,
    arena_counted,
    arena_get,
    arena_list,
    arena_persona_result_list,
    arena_product_list,
    arena_product_pair_get,
    documented_pairs,
)
from arena.selectors.calls import call_words, first_leads, next_calls, persona_call
from arena.selectors.cells import cell_page_get
from arena.selectors.compare import comparison_get
from arena.selectors.leaderboard import arena_leaderboard
from arena.selectors.matrix import arena_matrix, matrix_column_list
from core.text import source_ids
from flags.disputes import cell_dispute_list
from stories.values import Proof
from web.formats.markdown import inline, mark, score, url
from web.pages.cells import arena_updated, card
from web.pages.front import api_endpoints
from web.views.front import api_schema

MARKDOWN = "text/markdown; charset=utf-8"
TEXT = "text/plain; charset=utf-8"


def _markdown(
    request: HttpRequest, template: str, context: dict[str, Any], content_type: str = MARKDOWN
) -> HttpResponse:
    root = request.build_absolute_uri("/").rstrip("/")
    licence = (settings.DATA_LICENSE_NAME, url(settings.DATA_LICENSE_URL) or "")
    text = render_to_string(template, {"root": root, "licence": licence, **context})
    body = re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"  # the tags' blank lines, folded
    return HttpResponse(body, content_type=content_type)


def _not_found(what: str) -> HttpResponse:
    body = f"# Not found\n\nNo {inline(what)} here. The list of arenas: see /llms.txt.\n"
    return HttpResponse(body, content_type=MARKDOWN, status=404)


@require_safe
def arena_markdown(request: HttpRequest, arena: str) -> HttpResponse:
    if (found := arena_get(slug=arena)) is None:
        return _not_found(f"arena {arena!r}")
    categories = arena_category_list(arena=found)
    board = arena_leaderboard(arena=found, categories=[c.name for c in categories], stale=False)
    products = arena_product_list(arena=found)
    # the page's columns: all up to MATRIX_COLUMNS, else the top ones (the API has every one)
    columns = matrix_column_list(products=products, ranking=[row.product_id for row in board.rows])
    matrix = arena_matrix(arena=found, products=columns)
    scores = {row.product_id: row for row in board.rows}
    context = {
        "arena": found,
        "products": products,
        "board": board,
        "matrix": matrix,
        "updated": arena_updated(found),
        "leaders": [
            {
                "row": row,
                "personas": [score((row.persona_scores or {}).get(s)) for s in board.personas],
                "share": evidence_share(row.published_evidence, row.judged),
                "call": call_words(call),
            }
            # (no rows: next_calls still gives its one trailing None)
            for row, call in zip(board.rows, next_calls(board.rows), strict=False)
        ],
        "personas": [
            (r, call_words(persona_call(r, scores))) for r in arena_persona_result_list(arena=found)
        ],
        "pairs": [(a, b) for _, a, b in documented_pairs(arena=found)],
        "blocks": [
            (block, [(group, _marked(group.rows, matrix.products)) for group in block.groups])
            for block in matrix.blocks
        ],
    }
    return _markdown(request, "markdown/arena.md", context)


def _marked(rows: Any, products: Any) -> list[tuple[Any, str]]:
    out = []
    for row in rows:
        by = {c.product_id: c for c in row.cells}
        out.append((row, " | ".join(mark(by[p.pk].value) if p.pk in by else "—" for p in products)))
    return out


@require_safe
def head_to_head_markdown(request: HttpRequest, arena: str, a: str, b: str) -> HttpResponse:
    if (found := arena_get(slug=arena)) is None:
        return _not_found(f"arena {arena!r}")
    pair = arena_product_pair_get(arena=found, a=a, b=b)
    if a == b or a not in pair or b not in pair:
        return _not_found(f"head-to-head {a!r} vs {b!r} in {found.slug}")
    cmp = comparison_get(arena=found, products=[pair[a], pair[b]], evidence=True)
    ra, rb = (s.ranged for s in cmp.standings.values())
    context = {
        "arena": found,
        "cmp": cmp,
        "scores": f"PA Score {inline(cmp.a.name)} {_ranged(ra)} · {inline(cmp.b.name)} {_ranged(rb)}"
        if ra is not None and rb is not None
        else "no PA Scores",
        "blocks": [
            {"category": b.category, "groups": b.groups, "tally": cmp.tallies.get(b.category.pk)}
            for b in cmp.blocks
        ],
    }
    return _markdown(request, "markdown/head_to_head.md", context)


def _ranged(r: Any) -> str:
    return "no PA Score" if r.score is None else score(r.score, (r.low, r.high))


@require_safe
def cell_markdown(request: HttpRequest, cell: int) -> HttpResponse:
    if (page := cell_page_get(pk=cell)) is None:
        return _not_found(f"cell {cell}")
    c = page.cell
    cited = []
    if c.detail_published:
        for key in source_ids(" ".join([c.rationale, *(e.source for e in c.evidence.all())])):
            s = page.sources.get(key)
            cited.append((key, s, url(s.url) if s is not None else None))
    context = {
        "page": page,
        "card": card(c, page.sources),
        "disputes": cell_dispute_list(cell_id=c.pk),
        "c": c,
        "cited": cited,
        "proof_meaning": Proof(c.proof).meaning if c.proof else "",
    }
    return _markdown(request, "markdown/cell.md", context)


@require_safe
def llms_txt(request: HttpRequest) -> HttpResponse:
    context = {"arenas": [(a, first_leads(a)) for a in arena_counted(arenas=arena_list())]}
    return _markdown(request, "markdown/llms.txt", context, content_type=TEXT)


@require_safe
def api_markdown(request: HttpRequest) -> HttpResponse:
    schema = api_schema()
    context = {"schema": schema, "endpoints": api_endpoints(schema)}
    return _markdown(request, "markdown/api.md", context)
