"""The public pages: each reads the request (``web.params``), loads through ``arena.selectors``,
turns "not found" into a 404 and renders one template, or one partial of it for htmx."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from arena import scoring, selectors
from arena.selectors.search import arena_product_choices
from flags.disputes import arena_open_dispute_counts, cell_dispute_list
from products.models import Product
from web import params
from web.pages import links as page_links
from web.params import HtmxHttpRequest, fragment_asked, links
from web.views.disputes import arena_or_404

# The regions of the arena page that htmx swaps in place (the ids of their elements).
ARENA_PARTIALS = ("leaderboard", "matrix")
# The id of a collapsed category of the matrix starts so (``mx-cat-<pk>``): its link asks for its rows.
CATEGORY_TARGET = "mx-cat-"


def _or_404[T](found: T | None, what: str) -> T:
    if found is None:
        raise Http404(f"No {what}")
    return found


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    ctx = {"arenas": selectors.arena_list(), "pick_choices": arena_product_choices()}
    return render(request, "arena/home.html", ctx)


@require_safe
def methodology(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "arena/methodology.html")


@require_safe
@vary_on_headers("HX-Request", "HX-Target", "HX-History-Restore-Request")
def arena_detail(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    """An arena's leaderboard and story matrix, as ``web.params.ArenaAsked`` reads the query; htmx
    asks for the leaderboard, the matrix or a collapsed category's rows."""
    found = arena_or_404(arena)
    asked = params.ArenaAsked.of(request.GET)
    partial = _arena_partial(request, asked.filters)
    if partial is None and asked.weights.from_form:
        # the weights panel without JavaScript: its fields become the shareable ?weights= address
        board = selectors.arena_leaderboard(arena=found, asked=asked.weights)
        query = links.arena_query(
            asked.filters, show=asked.show, fold=asked.fold, weights=board.weights_query
        )
        return redirect(f"{found.get_absolute_url()}{query}#leaderboard-section")
    rank = asked.rank or selectors.RANK_PA
    ctx: dict[str, Any] = {
        "arena": found,
        "arena_url": found.get_absolute_url(),
        "urls": page_links.arena_page_urls(found.slug),  # the other addresses the page links
        # each product's open disputes (the leaderboard's rows, the matrix's heads): one query
        "open_disputes": arena_open_dispute_counts(arena=found),
        "filters": asked.filters,
        # the rank asked for, which the filter form carries along unless it is the default
        "rank": "" if rank == selectors.RANK_PA else rank,
        "fragment": partial is not None,
    }
    if partial == "leaderboard":
        return _leaderboard_fragment(request, ctx, asked, rank=rank)
    if partial is None:
        products, ranking = _arena_board(ctx, asked, rank=rank)
    else:
        products, ranking = selectors.arena_product_ranking(arena=found, key=rank)
        ctx["weights_query"] = asked.weights_carried
        if asked.weights_carried:  # the columns follow the visitor's weights, as the board does
            board = selectors.arena_leaderboard(arena=found, key=rank, asked=asked.weights)
            ranking = [r.product_id for r in board.rows]
    _matrix_context(ctx, asked, products=products, ranking=ranking)
    template = "arena/detail.html" + (f"#{partial}" if partial else "")
    return render(request, template, ctx)


def _arena_partial(request: HtmxHttpRequest, filters: selectors.MatrixFilters) -> str | None:
    """The fragment of the arena page an htmx request asks for, None for the whole page."""
    if not fragment_asked(request.htmx):
        return None
    partial = request.htmx.target or ""
    if partial.startswith(CATEGORY_TARGET):
        # a collapsed category's rows, asked for by its link; or a category folded by its
        # "Hide" link, which picks its heading out of the matrix (``hx-select``)
        return "matrix_category" if filters.category else "matrix"
    if partial not in ARENA_PARTIALS:
        return "matrix" if filters.active else "leaderboard"
    return partial


def _leaderboard_fragment(
    request: HtmxHttpRequest, ctx: dict[str, Any], asked: params.ArenaAsked, *, rank: str
) -> HttpResponse:
    board = selectors.arena_leaderboard(arena=ctx["arena"], key=rank, asked=asked.weights)
    ctx["board"] = board
    _weights_context(ctx, board, asked)
    ctx["weights_sent"] = asked.weights_sent
    response = render(request, "arena/detail.html#leaderboard", ctx)
    if not asked.weights_sent:
        return response
    # the address says the weights in their canonical form (and without them once the rank or
    # "Reset" replaced them)
    query = links.arena_query(
        asked.filters,
        show=asked.show,
        fold=asked.fold,
        weights=board.weights_query,
        rank=ctx["rank"],
    )
    return push_url(response, f"{ctx['arena_url']}{query}")


def _arena_board(
    ctx: dict[str, Any], asked: params.ArenaAsked, *, rank: str
) -> tuple[list[Product], Sequence[scoring.ProductKey]]:
    """The whole page's leaderboard and what surrounds it; the products and the ranking (the
    board's order) the matrix's columns follow."""
    arena = ctx["arena"]
    categories = selectors.arena_category_list(arena=arena)
    ctx["board"] = board = selectors.arena_leaderboard(
        arena=arena, key=rank, categories=[c.name for c in categories], asked=asked.weights
    )
    _weights_context(ctx, board, asked)
    products = selectors.arena_product_list(arena=arena)
    ranking = [r.product_id for r in board.rows]  # the visitor's weights' order when set
    ctx["categories"] = categories
    ctx["persona_results"] = selectors.arena_persona_result_list(arena=arena)
    ctx["adjacent"] = selectors.arena_adjacent_list(arena=arena)
    return products, ranking


def _matrix_context(
    ctx: dict[str, Any],
    asked: params.ArenaAsked,
    *,
    products: list[Product],
    ranking: Sequence[scoring.ProductKey],
) -> None:
    """The story matrix, its product chooser and what a collapsed category's link carries."""
    columns = selectors.matrix_column_list(products=products, ranking=ranking, show=asked.show)
    default = selectors.matrix_column_list(products=products, ranking=ranking)
    picked = ",".join(p.slug for p in columns) if columns != default else ""
    ctx["chosen"] = columns  # the products the chooser has ticked
    sort = next((p for p in products if p.slug == asked.filters.sort), None)
    if sort is not None and sort not in columns:
        columns = [sort, *columns]  # stories sorted by a product's verdicts show its column
    ctx["matrix"] = selectors.arena_matrix(
        arena=ctx["arena"],
        filters=asked.filters,
        products=columns,
        collapse_above=selectors.MATRIX_COLLAPSE_ABOVE,
        fold=asked.fold,
    )
    ctx["products"] = products
    ctx["picked"] = picked  # the products shown when they are not the default ones
    ctx["default_show"] = ",".join(p.slug for p in default)
    ctx["pick_columns"] = len(products) > selectors.MATRIX_COLUMNS
    ctx["column_limit"] = selectors.MATRIX_COLUMNS
    ctx["matrix_query"] = links.matrix_category_params(
        asked.filters,
        rank=ctx["rank"],
        picked=picked,
        fold=asked.fold,
        weights=ctx["weights_query"],
    )


def _weights_context(
    ctx: dict[str, Any], board: selectors.Leaderboard, asked: params.ArenaAsked
) -> None:
    """The weights panel's: the canonical weights, the presets' and the reset's addresses."""
    ctx["weights_query"] = board.weights_query
    if board.weighted:
        ctx["rank"] = ""
    base = ctx["arena_url"]

    def url(weights: str) -> str:
        query = links.arena_query(asked.filters, show=asked.show, fold=asked.fold, weights=weights)
        return f"{base}{query}"

    ctx["weights_reset_url"] = url("")
    presets = [
        (key.label, links.weights_write([(key.key, selectors.WEIGHT_CRITICAL)]))
        for key in (board.reading.keys if board.reading else ())
        if key.kind == selectors.PERSONA
    ]
    ctx["weights_presets"] = [
        (f"Rank as {'an' if label[:1] in 'aeiou' else 'a'} {label} would", weights, url(weights))
        for label, weights in presets
    ]
    ctx["weights_hidden"] = links.arena_params(asked.filters, show=asked.show, fold=asked.fold)


def _view_links(*, diff: bool, open_all: bool) -> dict[str, str]:
    """A head-to-head's links that change one thing of the view and keep the other."""
    return {
        "diff_on": links.head_to_head_query(diff=True, open_all=open_all),
        "diff_off": links.head_to_head_query(diff=False, open_all=open_all),
        "open_on": links.head_to_head_query(diff=diff, open_all=True),
        "open_off": links.head_to_head_query(diff=diff, open_all=False),
    }


@require_safe
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def head_to_head(request: HtmxHttpRequest, arena: str, a: str, b: str) -> HttpResponse:
    found = arena_or_404(arena, close_calls=True)  # (what would settle a close pair)
    error, status = "", 200
    asked = params.HeadToHeadAsked.of(request.GET)
    diff, open_all, opened = asked.diff, asked.open_all, asked.opened
    view = links.head_to_head_query(diff=diff, open_all=open_all)
    if asked.a and asked.b and (asked.a, asked.b) != (a, b):
        if not (params.SLUG.fullmatch(asked.a) and params.SLUG.fullmatch(asked.b)):
            # not a product of any arena (a hand-edited address): say so, keep the current pair
            error, status = "Pick two products from the list.", 400
        elif asked.a == asked.b:
            error = "Pick two different products."
        else:
            a, b = asked.a, asked.b
            if not fragment_asked(request.htmx):
                return redirect(reverse("head-to-head", args=[found.slug, a, b]) + view)
    products = selectors.arena_product_list(arena=found)  # (the pair picker lists them too)
    pair = selectors.arena_product_pair_get(arena=found, a=a, b=b, products=products)
    if a == b or a not in pair or b not in pair:
        raise Http404(f"No head-to-head {a!r} vs {b!r} in {found.slug}")
    pa, pb = pair[a], pair[b]
    cmp = selectors.head_to_head_get(arena=found, a=pa, b=pb, differences_only=diff)
    pair_url = reverse("head-to-head", args=[found.slug, pa.slug, pb.slug])
    if opened is not None and request.htmx and request.htmx.target == f"why-{opened}":
        row = next((r for r in cmp.rows if r.story.pk == opened), None)
        if row is None:
            raise Http404(f"No round of story {opened} in {pa.slug} vs {pb.slug}")
        return render(request, "arena/head_to_head.html#round_cards", {"row": row, "cmp": cmp})
    open_disputes = arena_open_dispute_counts(arena=found)
    ctx = {
        "arena": found,
        "cmp": cmp,
        "open_disputes": open_disputes,
        # the line of open disputes only when either side has one: "none · none" would push the
        # first rounds off a phone's first screen for nothing
        "pair_disputed": any(open_disputes.get(p.pk) for p in (pa, pb)),
        # a long head-to-head's rounds load their cards when opened (the page stays small)
        "lazy": pair_url
        if len(cmp.rows) > selectors.HEAD_TO_HEAD_INLINE and not open_all
        else None,
        "opened": opened,
        "products": products,
        "settle": selectors.pair_settle_get(arena=found, a=pa, b=pb, products=products),
        "error": error,
        "fragment": fragment_asked(request.htmx),
        "open_all": open_all,
        **_view_links(diff=diff, open_all=open_all),
    }
    if ctx["fragment"]:
        response = render(request, "arena/head_to_head.html#comparison", ctx, status=status)
        return _swapped(response, pair_url + view)
    return render(request, "arena/head_to_head.html", ctx, status=status)


@require_safe
def product_detail(request: HtmxHttpRequest, arena: str, product: str) -> HttpResponse:
    found = arena_or_404(arena)
    products = selectors.arena_product_list(arena=found)  # (its head-to-head links list them)
    shown = _or_404(
        selectors.product_get(arena=found, slug=product, products=products),
        f"product {product!r}",
    )
    ctx = {
        "arena": found,
        "page": selectors.product_page_get(arena=found, product=shown),
        "products": products,
    }
    return render(request, "products/detail.html", ctx)


@require_safe
def story_detail(request: HtmxHttpRequest, arena: str, story: int) -> HttpResponse:
    found = arena_or_404(arena)
    shown = _or_404(selectors.story_get(arena=found, pk=story), f"story {story}")
    cells = selectors.story_cell_list(story=shown)
    sources = selectors.cited_sources(arena_id=shown.arena_id, cells=cells)
    ctx = {"arena": found, "story": shown, "cells": cells, "sources": sources}
    return render(request, "stories/detail.html", ctx)


@require_safe
def arena_sources(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    found = arena_or_404(arena)
    ctx = {"arena": found, "sources": selectors.arena_source_list(arena=found)}
    return render(request, "arena/sources.html", ctx)


@require_safe
def cell_detail(request: HtmxHttpRequest, cell: int) -> HttpResponse:
    page = _or_404(selectors.cell_page_get(pk=cell), f"cell {cell}")
    disputes = cell_dispute_list(cell_id=page.cell.pk)  # the flags app's, the latest news first
    ctx = {"page": page, "cell": page.cell, "arena": page.cell.story.arena, "disputes": disputes}
    return render(request, "stories/cell.html", ctx)


@require_safe
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def arena_compare(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    """Two to six products side by side (``?products=a,b,c``; ``diff=1``: no drawn rounds). A pick
    that cannot be compared shows the picker with what is wrong, as a 400."""
    found = arena_or_404(arena)
    products = selectors.arena_product_list(arena=found)
    slugs = params.slug_list(request.GET, params.PRODUCTS)
    diff = params.diff_asked(request.GET)
    pick = selectors.compare_pick(products=products, slugs=slugs)
    status = 200 if pick.ok or not slugs else 400
    cmp = (
        selectors.compare_many_get(arena=found, products=pick.products, differences_only=diff)
        if pick.ok
        else None
    )
    page_url = reverse("arena-compare", args=[found.slug])
    chosen = [p.slug for p in pick.products]
    ctx = {
        "arena": found,
        "cmp": cmp,
        "pick": pick,
        "error": pick.error if slugs else "",
        "products": products,
        "chosen": {p.pk for p in pick.products},
        "page_url": page_url,
        "diff": diff,
        # the links that switch "differences only" and keep the products
        "all_url": page_url + links.compare_query(chosen, diff=False),
        "diff_url": page_url + links.compare_query(chosen, diff=True),
        "fragment": fragment_asked(request.htmx),
        "compare_min": selectors.COMPARE_MIN,
        "compare_max": selectors.COMPARE_MAX,
    }
    if ctx["fragment"]:
        response = render(request, "arena/compare.html#compare", ctx, status=status)
        view_url = (
            request.get_full_path()
            if cmp is None
            else page_url + links.compare_query(chosen, diff=diff)
        )
        return _swapped(response, view_url)
    return render(request, "arena/compare.html", ctx, status=status)


def _swapped(response: HttpResponse, url: str) -> HttpResponse:
    """An htmx fragment that pushes ``url``; a 4xx one swapped too (htmx does not by default), so
    the message shows in place."""
    if response.status_code != 200:
        response["HX-Reswap"] = "innerHTML"
    return push_url(response, url)
