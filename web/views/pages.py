"""Public pages: read the request (``web.params``), load (``arena.selectors``), render or 404."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from arena.scoring.ranking import RANK_PA
from arena.scoring.rounds import COMPARE_MAX, COMPARE_MIN
from arena.scoring.tally import ProductKey
from arena.selectors.arenas import (
    CountedArena,
    arena_adjacent_list,
    arena_category_list,
    arena_counted,
    arena_kept,
    arena_list,
    arena_persona_result_list,
    arena_product_list,
    arena_product_pair_get,
)
from arena.selectors.cells import cell_page_get, cited_sources, story_cell_list, story_get
from arena.selectors.compare import (
    HEAD_TO_HEAD_INLINE,
    HEAD_TO_HEAD_ROWS,
    compare_pick,
    comparison_get,
)
from arena.selectors.leaderboard import Leaderboard, arena_leaderboard, arena_product_ranking
from arena.selectors.matrix import (
    MATRIX_COLLAPSE_ABOVE,
    MATRIX_COLUMNS,
    MATRIX_ROWS,
    MatrixFilters,
    arena_matrix,
    matrix_column_list,
    product_get,
    product_page_get,
)
from arena.selectors.search import arena_product_choices
from arena.selectors.settle import pair_settle_get
from arena.selectors.weights import PERSONA, WEIGHT_CRITICAL
from flags.disputes import arena_open_dispute_counts, cell_dispute_list
from products.models import Product
from stories import freshness
from web import params
from web.http import pagekeys
from web.pages import links
from web.pages.cells import card
from web.params import HtmxHttpRequest, fragment_asked
from web.views.common import arena_or_404, swapped

ARENA_PARTIALS = ("leaderboard", "matrix")  # the arena page's regions htmx swaps (element ids)
ARENAS_PER_PAGE = 24  # the home page's arena cards: the rest on the next pages


def open_dispute_counts(arena: CountedArena) -> dict[int, int]:
    """Open disputes by product, kept per content version (filing or resolving a flag moves it)."""
    return arena_kept(arena, "open-disputes", lambda: arena_open_dispute_counts(arena=arena))


def _or_404[T](found: T | None, what: str) -> T:
    if found is None:
        raise Http404(f"No {what}")
    return found


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    page = Paginator(arena_list(), ARENAS_PER_PAGE).get_page(request.GET.get(params.PAGE.name))
    arenas = arena_counted(arenas=page.object_list)
    choices = arena_product_choices(arenas=[a.pk for a in arenas])
    ctx = {"page": page, "arenas": arenas, "pick_choices": choices}
    return render(request, "arena/home.html", ctx)


@require_safe
def methodology(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "arena/methodology.html")


@require_safe
@vary_on_headers("HX-Request", "HX-Target", "HX-History-Restore-Request")
def arena_detail(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    """An arena's leaderboard and matrix; htmx asks for either or a collapsed category's rows."""
    found = arena_or_404(arena)
    asked = params.ArenaAsked.of(request.GET)
    partial = _arena_partial(request, asked.filters)
    arena_url = found.get_absolute_url()

    def address(weights: str, rank: str = "") -> str:
        query = links.arena_query(
            asked.filters, show=asked.show, fold=asked.fold, weights=weights, rank=rank
        )
        return arena_url + query

    if partial is None and asked.weights.from_form:
        # the weights panel without JavaScript: its fields become the shareable ?weights= address
        board = arena_leaderboard(arena=found, asked=asked.weights)
        return redirect(address(board.weights_query) + "#leaderboard-section")
    rank = asked.rank or RANK_PA
    ctx: dict[str, Any] = {
        "arena": found,
        "arena_url": arena_url,
        "open_disputes": open_dispute_counts(found),
        "filters": asked.filters,
        "rank": "" if rank == RANK_PA else rank,  # the filter form carries it unless the default
        "fragment": partial is not None,
        "weights_query": asked.weights_carried,
    }
    if partial in (None, "leaderboard"):
        if partial is None:
            ctx["categories"] = arena_category_list(arena=found)
        names = [c.name for c in ctx["categories"]] if partial is None else None
        ctx["board"] = board = arena_leaderboard(
            arena=found, key=rank, categories=names, asked=asked.weights
        )
        ctx["rank"] = "" if board.weighted else ctx["rank"]
        ctx["board_kept"] = _kept(found, board.key, board.weights_query)
        ctx.update(_weights_panel(board, asked, address))
    if partial == "leaderboard":
        ctx["weights_sent"] = asked.weights_sent
        response = render(request, "arena/detail.html#leaderboard", ctx)
        if not asked.weights_sent:
            return response
        # the weights as canonically written (none once the rank or "Reset" replaced them)
        return push_url(response, address(board.weights_query, ctx["rank"]))
    if partial is not None:
        products, ranking = arena_product_ranking(arena=found, key=rank)
        if asked.weights_carried:  # the columns follow the visitor's weights, as the board does
            board = arena_leaderboard(arena=found, key=rank, asked=asked.weights)
            ranking = [r.product_id for r in board.rows]
    else:
        products = arena_product_list(arena=found)
        ranking = [r.product_id for r in board.rows]  # the visitor's weights' order when set
        ctx["persona_results"] = arena_persona_result_list(arena=found)
        ctx["adjacent"] = arena_adjacent_list(arena=found)
    _matrix_context(ctx, asked, products=products, ranking=ranking)
    template = "arena/detail.html" + (f"#{partial}" if partial else "")
    return render(request, template, ctx)


def _kept(arena: CountedArena, *asked: object) -> str:
    """A fragment's ``{% cache %}`` key: code, arena version and epoch, day, and what was asked."""
    epoch = getattr(arena, "cache_epoch", None)
    when = (freshness.today(), freshness.stale_days())
    return repr((pagekeys.release(), arena.pk, arena.content_version, epoch, when, asked))


def _weights_panel(
    board: Leaderboard, asked: params.ArenaAsked, address: Callable[[str], str]
) -> dict[str, Any]:
    """The canonical weights, the presets' (rank as a user type would) and the reset's addresses."""
    presets = [
        (f"Rank as {'an' if k.label[:1] in 'aeiou' else 'a'} {k.label} would", w, address(w))
        for k in (board.reading.keys if board.reading else ())
        if k.kind == PERSONA
        for w in [f"{k.key}:{WEIGHT_CRITICAL}"]
    ]
    return {
        "weights_query": board.weights_query,
        "weights_reset_url": address(""),
        "weights_presets": presets,
        "weights_hidden": links.arena_params(asked.filters, show=asked.show, fold=asked.fold),
    }


def _arena_partial(request: HtmxHttpRequest, filters: MatrixFilters) -> str | None:
    """The fragment of the arena page an htmx request asks for, None for the whole page."""
    if not fragment_asked(request.htmx):
        return None
    partial = request.htmx.target or ""
    if partial.startswith(params.CATEGORY_TARGET):
        # a collapsed category's rows (its link), or one folded by "Hide" (its heading: hx-select)
        return "matrix_category" if filters.category else "matrix"
    if partial not in ARENA_PARTIALS:
        return "matrix" if filters.active else "leaderboard"
    return partial


def _matrix_context(
    ctx: dict[str, Any],
    asked: params.ArenaAsked,
    *,
    products: list[Product],
    ranking: Sequence[ProductKey],
) -> None:
    """The story matrix, its product chooser and what a collapsed category's link carries."""
    columns = matrix_column_list(products=products, ranking=ranking, show=asked.show)
    default = matrix_column_list(products=products, ranking=ranking)
    picked = ",".join(p.slug for p in columns) if columns != default else ""
    ctx["chosen"] = columns  # the products the chooser has ticked
    sort = next((p for p in products if p.slug == asked.filters.sort), None)
    if sort is not None and sort not in columns:
        columns = [sort, *columns]  # stories sorted by a product's verdicts show its column
    ctx["matrix"] = SimpleLazyObject(  # read only if drawn: a kept fragment has it already
        lambda: arena_matrix(
            arena=ctx["arena"],
            filters=asked.filters,
            products=columns,
            collapse_above=MATRIX_COLLAPSE_ABOVE,
            fold=asked.fold,
            page_rows=MATRIX_ROWS,
            page=asked.page if asked.filters.category else 1,  # (a page of the category asked)
        )
    )
    ctx["products"] = products
    ctx["picked"] = picked  # the products shown when they are not the default ones
    ctx["default_show"] = ",".join(p.slug for p in default)
    ctx["column_limit"] = MATRIX_COLUMNS
    kept = {  # what a collapsed category's links carry besides it (folds only when none is shown)
        **asked.filters.as_params(),
        "category": "",
        "rank": ctx["rank"],
        "show": picked,
        "fold": "" if asked.filters.category else ",".join(asked.fold),
        "weights": ctx["weights_query"],
    }
    ctx["matrix_query"] = {k: v for k, v in kept.items() if v}
    # The matrix's count and HTML are kept when the matrix is (not for a search, a persona, a
    # category or a fold; ``arena_kept``); their links carry ``matrix_query``.
    filters = asked.filters
    keep = getattr(ctx["arena"], "cache_epoch", None) is not None
    if keep and not (filters.q or filters.persona or filters.category or asked.fold):
        pks = [[p.pk for p in some] for some in (columns, ctx["chosen"], default)]
        sort_slug = sort.slug if sort is not None else ""
        asked_for = (pks, filters.verdict, filters.stale, sort_slug, ctx["matrix_query"])
        ctx["matrix_kept"] = _kept(ctx["arena"], "matrix", *asked_for)


@require_safe
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def head_to_head(request: HtmxHttpRequest, arena: str, a: str, b: str) -> HttpResponse:
    found = arena_or_404(arena)
    error, status = "", 200
    query = request.GET
    diff = params.text(query, params.DIFF) == "1"
    open_all, opened = params.text(query, params.OPEN) == "all", params.opened_round(query)
    view = params.query_string([("diff", "1")] * diff + [("open", "all")] * open_all)
    new_a, new_b = params.text(query, params.A).strip(), params.text(query, params.B).strip()
    if new_a and new_b and (new_a, new_b) != (a, b):
        if not (params.SLUG.fullmatch(new_a) and params.SLUG.fullmatch(new_b)):
            # not a product of any arena (a hand-edited address): say so, keep the current pair
            error, status = "Pick two products from the list.", 400
        elif new_a == new_b:
            error = "Pick two different products."
        else:
            a, b = new_a, new_b
            if not fragment_asked(request.htmx):
                return redirect(reverse("head-to-head", args=[found.slug, a, b]) + view)
    products = arena_product_list(arena=found)  # (the pair picker lists them too)
    pair = arena_product_pair_get(arena=found, a=a, b=b, products=products)
    if a == b or a not in pair or b not in pair:
        raise Http404(f"No head-to-head {a!r} vs {b!r} in {found.slug}")
    pa, pb = pair[a], pair[b]
    cmp = comparison_get(arena=found, products=[pa, pb], differences_only=diff, evidence=True)
    pair_url = reverse("head-to-head", args=[found.slug, pa.slug, pb.slug])
    row = next((r for r in cmp.rows if r.story.pk == opened), None)
    if opened is not None and request.htmx and request.htmx.target == f"why-{opened}":
        if row is None:
            raise Http404(f"No round of story {opened} in {pa.slug} vs {pb.slug}")
        return render(request, "arena/head_to_head.html#round_cards", {"row": row, "cmp": cmp})
    open_disputes = open_dispute_counts(found)
    asked, folded = params.text(query, params.CATEGORY), set()
    if len(cmp.rows) > HEAD_TO_HEAD_ROWS and not open_all:
        shown = {cmp.blocks[0].category.pk, row.story.category_id if row else None}
        folded = {b.category.pk for b in cmp.blocks if b.slug != asked} - shown
    ctx = {
        "arena": found,
        "cmp": cmp,
        "folded": folded,  # categories written as a link to their rounds
        "written": sum(b.count for b in cmp.blocks if b.category.pk not in folded),
        "asked_category": asked,
        "open_disputes": open_disputes,
        # the disputes line only if a side has one: "none · none" pushes rounds off a phone screen
        "pair_disputed": any(open_disputes.get(p.pk) for p in (pa, pb)),
        # a long head-to-head's rounds load their cards when opened (the page stays small)
        "lazy": pair_url if len(cmp.rows) > HEAD_TO_HEAD_INLINE and not open_all else None,
        "opened": opened,
        "opened_category": row.story.category_id if row else None,  # unfolded, beside the first
        "products": products,
        "settle": pair_settle_get(arena=found, a=pa, b=pb),
        "error": error,
        "fragment": fragment_asked(request.htmx),
        "open_all": open_all,
    }
    if ctx["fragment"]:
        response = render(request, "arena/head_to_head.html#comparison", ctx, status=status)
        return swapped(response, pair_url + view)
    return render(request, "arena/head_to_head.html", ctx, status=status)


@require_safe
def product_detail(request: HtmxHttpRequest, arena: str, product: str) -> HttpResponse:
    found = arena_or_404(arena)
    products = arena_product_list(arena=found)  # (its head-to-head links list them)
    shown = _or_404(
        product_get(arena=found, slug=product, products=products), f"product {product!r}"
    )
    category = params.text(request.GET, params.CATEGORY).strip()
    page = product_page_get(
        arena=found, product=shown, category=category, page=params.page_number(request.GET)
    )
    ctx = {"arena": found, "page": page, "products": products, "category": category}
    return render(request, "products/detail.html", ctx)


@require_safe
def story_detail(request: HtmxHttpRequest, arena: str, story: int) -> HttpResponse:
    found = arena_or_404(arena)
    shown = _or_404(story_get(arena=found, pk=story), f"story {story}")
    cells = story_cell_list(story=shown)
    sources = cited_sources(arena_id=shown.arena_id, cells=cells)
    ctx = {"arena": found, "story": shown, "cells": cells, "sources": sources}
    return render(request, "stories/detail.html", ctx)


@require_safe
def arena_sources(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    found = arena_or_404(arena)
    ctx = {"arena": found, "sources": found.sources.all()}  # by id
    return render(request, "arena/sources.html", ctx)


@require_safe
def cell_detail(request: HtmxHttpRequest, cell: int) -> HttpResponse:
    page = _or_404(cell_page_get(pk=cell), f"cell {cell}")
    c = page.cell
    ctx = {
        "page": page,
        "cell": c,
        "arena": c.story.arena,
        "card": card(c, page.sources),
        "disputes": cell_dispute_list(cell_id=c.pk),  # the flags app's, the latest news first
    }
    return render(request, "stories/cell.html", ctx)


@require_safe
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def arena_compare(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    """2 to 6 products side by side (``?products=a,b,c``; ``diff=1``: no drawn rounds), or a 400."""
    found = arena_or_404(arena)
    products = arena_product_list(arena=found)
    slugs = params.slug_list(request.GET, params.PRODUCTS)
    diff = params.text(request.GET, params.DIFF) == "1"
    picked, error = compare_pick(products=products, slugs=slugs)
    status = 400 if error and slugs else 200
    cmp = None if error else comparison_get(arena=found, products=picked, differences_only=diff)
    page_url = reverse("arena-compare", args=[found.slug])
    chosen = [p.slug for p in picked]
    asked, folded = params.text(request.GET, params.CATEGORY), set()
    if cmp is not None and len(cmp.rows) > HEAD_TO_HEAD_ROWS:  # the first category's and asked
        folded = {b.category.pk for b in cmp.blocks[1:] if b.slug != asked}
    ctx = {
        "arena": found,
        "cmp": cmp,
        "folded": folded,  # categories written as a link to their rounds
        "written": sum(b.count for b in cmp.blocks if b.category.pk not in folded) if cmp else 0,
        "picked": picked,
        "error": error if slugs else "",
        # the picker: the products picked (ticked) first, so that the form sends them in that order
        "picker": [(p, True) for p in picked] + [(p, False) for p in products if p not in picked],
        "page_url": page_url,
        "diff": diff,
        # the links that switch "differences only" and keep the products
        "all_url": page_url + links.compare_query(chosen, diff=False),
        "diff_url": page_url + links.compare_query(chosen, diff=True),
        "fragment": fragment_asked(request.htmx),
        "compare_min": COMPARE_MIN,
        "compare_max": COMPARE_MAX,
    }
    if ctx["fragment"]:
        response = render(request, "arena/compare.html#compare", ctx, status=status)
        shown = page_url + links.compare_query(chosen, diff=diff)
        return swapped(response, request.get_full_path() if cmp is None else shown)
    return render(request, "arena/compare.html", ctx, status=status)
