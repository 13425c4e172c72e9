"""The public pages. Each view reads the request, loads through ``arena.selectors`` (a fixed
number of queries), turns "not found" into a 404 and renders one template; htmx requests get one
named partial of the same template."""

from __future__ import annotations

import re
from urllib import parse

from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from arena import selectors
from arena.text import clean_text

# The regions of the arena page that htmx swaps in place (the ids of their elements).
ARENA_PARTIALS = ("leaderboard", "matrix")
# The id of a collapsed category of the matrix starts so (``mx-cat-<pk>``): its link asks for its rows.
CATEGORY_TARGET = "mx-cat-"
# At most this many products picked for the matrix (``?show=``).
SHOW_MAX = 100
# What the URL patterns accept as a slug (``<slug:…>``): a picked product must be one to be linked to.
SLUG = re.compile(r"[-a-zA-Z0-9_]+")
# The longest query value a page reads; longer values are cut (no filter or key is that long).
PARAM_MAX_LENGTH = 200


def _or_404[T](found: T | None, what: str) -> T:
    """What a selector found, or the 404 page when it found nothing."""
    if found is None:
        raise Http404(f"No {what}")
    return found


def _params(query: QueryDict, *names: str) -> dict[str, str]:
    """The named query values as the pages read them: the last one given, control characters (a NUL
    among them, which PostgreSQL refuses in a query) dropped, and at most PARAM_MAX_LENGTH long."""
    return {name: clean_text(query.get(name) or "")[:PARAM_MAX_LENGTH] for name in names}


def _htmx_partial(request: HttpRequest) -> bool:
    """Whether to answer with a fragment: an htmx request that is not a boosted navigation or a
    history restore (both of which need the whole page)."""
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/home.html", {"arenas": selectors.arena_list()})


@require_safe
def methodology(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/methodology.html")


def _slug_list(query: QueryDict, name: str) -> list[str]:
    """The slugs given in ``?<name>=a,b`` or ``?<name>=a&<name>=b``, in order, each once, at most
    ``SHOW_MAX`` (anything that is not a slug left out)."""
    slugs = []
    for value in query.getlist(name)[:SHOW_MAX]:
        for slug in clean_text(value)[: PARAM_MAX_LENGTH * 10].split(","):
            if SLUG.fullmatch(slug := slug.strip()) and slug not in slugs:
                slugs.append(slug)
    return slugs[:SHOW_MAX]


def _show(query: QueryDict) -> list[str]:
    """The products the visitor picked for the matrix (``?show=``, as the "Products shown" form
    sends them)."""
    return _slug_list(query, "show")


def _fold(query: QueryDict) -> list[str]:
    """The categories folded in the matrix (``?fold=``, as their "Hide" links send them)."""
    return _slug_list(query, "fold")


def _weights_asked(query: QueryDict) -> selectors.WeightsAsked:
    """The weights a request asks for (``?weights=`` and the panel's ``w-<key>`` fields), cleaned
    as the pages read every value."""
    cleaned = {
        name: clean_text(value)[: selectors.WEIGHTS_MAX_LENGTH]
        for name, value in query.items()
        if name == selectors.WEIGHTS_PARAM or name.startswith("w-")
    }
    return selectors.WeightsAsked.of(cleaned)


def _arena_query(
    filters: selectors.MatrixFilters, *, show: list[str], fold: list[str], weights: str
) -> str:
    """The arena page's query string for these settings, ``""`` when there are none: the matrix
    filters, the products picked, the folded categories, then the weights (their canonical form)."""
    query = filters.as_params()
    if show:
        query["show"] = ",".join(show)
    if fold:
        query["fold"] = ",".join(fold)
    if weights:
        query[selectors.WEIGHTS_PARAM] = weights
    # ``:`` and ``,`` left as they are: ``?weights=privacy-posture:3,agenticness:0`` reads as written
    return f"?{parse.urlencode(query, safe=':,')}" if query else ""


@require_safe
@vary_on_headers("HX-Request", "HX-Target", "HX-History-Restore-Request")
def arena_detail(request: HttpRequest, arena: str) -> HttpResponse:
    arena = _or_404(selectors.arena_get(slug=arena), f"arena {arena!r}")
    params = _params(request.GET, "persona", "category", "verdict", "q", "rank", "sort", "stale")
    filters = selectors.MatrixFilters.from_params(params)
    rank = params["rank"].strip() or selectors.RANK_PA
    show = _show(request.GET)
    fold = _fold(request.GET)
    # A visitor's weights replace the rank while they are set; a rank picked in the "Rank by" menu
    # (whose form carries the weights along) replaces the weights.
    asked = _weights_asked(request.GET)
    weights_sent = asked.given or selectors.WEIGHTS_PARAM in request.GET
    if params["rank"].strip() and not asked.from_form:
        asked = selectors.WeightsAsked()
    partial = None
    if _htmx_partial(request):
        partial = request.htmx.target or ""
        if partial.startswith(CATEGORY_TARGET):
            # a collapsed category's rows, asked for by its link; or a category folded by its
            # "Hide" link, which picks its heading out of the matrix (``hx-select``)
            partial = "matrix_category" if filters.category else "matrix"
        elif partial not in ARENA_PARTIALS:
            partial = "matrix" if filters.active else "leaderboard"
    elif asked.from_form:
        # the weights panel without JavaScript: its fields become the shareable ?weights= address
        board = selectors.arena_leaderboard(arena=arena, asked=asked)
        query = _arena_query(filters, show=show, fold=fold, weights=board.weights_query)
        return redirect(f"{arena.get_absolute_url()}{query}#leaderboard-section")
    ctx = {
        "arena": arena,
        "arena_url": arena.get_absolute_url(),
        "filters": filters,
        # the rank asked for, which the filter form carries along unless it is the default
        "rank": "" if rank == selectors.RANK_PA else rank,
        "fragment": partial is not None,
    }
    if partial == "leaderboard":
        ctx["board"] = board = selectors.arena_leaderboard(arena=arena, key=rank, asked=asked)
        _weights_context(ctx, board, filters=filters, show=show, fold=fold)
        ctx["weights_sent"] = weights_sent
        response = render(request, "arena/detail.html#leaderboard", ctx)
        if weights_sent:
            # the address says the weights in their canonical form (and without them once the
            # rank or "Reset" replaced them)
            query = _arena_query(filters, show=show, fold=fold, weights=board.weights_query)
            if not board.weighted and ctx["rank"]:
                query += f"{'&' if query else '?'}{urlencode({'rank': ctx['rank']})}"
            return push_url(response, f"{arena.get_absolute_url()}{query}")
        return response
    if partial is None:
        categories = selectors.arena_category_list(arena=arena)
        ctx["board"] = board = selectors.arena_leaderboard(
            arena=arena, key=rank, categories=[c.name for c in categories], asked=asked
        )
        _weights_context(ctx, board, filters=filters, show=show, fold=fold)
        products = selectors.arena_product_list(arena=arena)
        # the matrix's default columns: the top of the ranking, the published one under weights
        ranking = board.published_order if board.weighted else [r.product_id for r in board.rows]
        ctx["categories"] = categories
        ctx["persona_results"] = selectors.arena_persona_result_list(arena=arena)
        ctx["adjacent"] = selectors.arena_adjacent_list(arena=arena)
    else:
        products, ranking = selectors.arena_product_ranking(arena=arena, key=rank)
        ctx["weights_query"] = asked.text.strip() if not asked.from_form else ""
    columns = selectors.matrix_column_list(products=products, ranking=ranking, show=show)
    default = selectors.matrix_column_list(products=products, ranking=ranking)
    picked = ",".join(p.slug for p in columns) if columns != default else ""
    ctx["chosen"] = columns  # the products the chooser has ticked
    sort = next((p for p in products if p.slug == filters.sort), None)
    if sort is not None and sort not in columns:
        columns = [sort, *columns]  # stories sorted by a product's verdicts show its column
    ctx["matrix"] = selectors.arena_matrix(
        arena=arena,
        filters=filters,
        products=columns,
        collapse_above=selectors.MATRIX_COLLAPSE_ABOVE,
        fold=fold,
    )
    ctx["products"] = products
    ctx["picked"] = picked  # the products shown when they are not the default ones
    ctx["default_show"] = ",".join(p.slug for p in default)
    ctx["pick_columns"] = len(products) > selectors.MATRIX_COLUMNS
    ctx["column_limit"] = selectors.MATRIX_COLUMNS
    # what a collapsed category's link carries besides the category
    query = {k: v for k, v in filters.as_params().items() if k != "category"}
    if ctx["rank"]:
        query["rank"] = ctx["rank"]
    if picked:
        query["show"] = picked
    if fold and not filters.category:
        query["fold"] = ",".join(fold)
    if ctx["weights_query"]:
        query[selectors.WEIGHTS_PARAM] = ctx["weights_query"]
    ctx["matrix_query"] = query
    template = "arena/detail.html" + (f"#{partial}" if partial else "")
    return render(request, template, ctx)


def _weights_context(
    ctx: dict,
    board: selectors.Leaderboard,
    *,
    filters: selectors.MatrixFilters,
    show: list[str],
    fold: list[str],
) -> None:
    """What the weights panel and the leaderboard's weights line need: the canonical weights, the
    rank replaced while they are set, the presets' and the reset's addresses (the other settings
    kept)."""
    ctx["weights_query"] = board.weights_query
    if board.weighted:
        ctx["rank"] = ""
    base = ctx["arena_url"]

    def url(weights: str) -> str:
        return f"{base}{_arena_query(filters, show=show, fold=fold, weights=weights)}"

    ctx["weights_reset_url"] = url("")
    presets = [
        (key.label, f"{key.key}:{selectors.WEIGHT_CRITICAL}")
        for key in (board.reading.keys if board.reading else ())
        if key.kind == selectors.PERSONA
    ]
    ctx["weights_presets"] = [
        (f"Rank as {'an' if label[:1] in 'aeiou' else 'a'} {label} would", weights, url(weights))
        for label, weights in presets
    ]
    ctx["weights_hidden"] = {
        **filters.as_params(),
        **({"show": ",".join(show)} if show else {}),
        **({"fold": ",".join(fold)} if fold else {}),
    }


@require_safe
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def head_to_head(request: HttpRequest, arena: str, a: str, b: str) -> HttpResponse:
    arena = _or_404(selectors.arena_get(slug=arena), f"arena {arena!r}")
    error, status = "", 200
    # The pair picker is a plain GET form (?a=…&b=…) on the current head-to-head; ``diff=1``
    # shows only the rounds one side wins, ``open=all`` every round's rationale unfolded.
    picked = _params(request.GET, "a", "b", "diff", "open")
    pick_a, pick_b = picked["a"].strip(), picked["b"].strip()
    diff, open_all = picked["diff"] == "1", picked["open"] == "all"
    # ``open=<story>``: that round's rationale and evidence (its two cards alone, for htmx)
    opened = int(picked["open"]) if picked["open"].isascii() and picked["open"].isdigit() else None
    view = _h2h_view_query(diff=diff, open_all=open_all)
    if pick_a and pick_b and (pick_a, pick_b) != (a, b):
        if not (SLUG.fullmatch(pick_a) and SLUG.fullmatch(pick_b)):
            # not a product of any arena (a hand-edited address): say so, keep the current pair
            error, status = "Pick two products from the list.", 400
        elif pick_a == pick_b:
            error = "Pick two different products."
        else:
            a, b = pick_a, pick_b
            if not _htmx_partial(request):
                return redirect(reverse("head-to-head", args=[arena.slug, a, b]) + view)
    products = selectors.arena_product_list(arena=arena)  # (the pair picker lists them too)
    pair = selectors.arena_product_pair_get(arena=arena, a=a, b=b, products=products)
    if a == b or a not in pair or b not in pair:
        raise Http404(f"No head-to-head {a!r} vs {b!r} in {arena.slug}")
    pa, pb = pair[a], pair[b]
    cmp = selectors.head_to_head_get(arena=arena, a=pa, b=pb, differences_only=diff)
    pair_url = reverse("head-to-head", args=[arena.slug, pa.slug, pb.slug])
    if opened is not None and request.htmx and request.htmx.target == f"why-{opened}":
        row = next((r for r in cmp.rows if r.story.pk == opened), None)
        if row is None:
            raise Http404(f"No round of story {opened} in {pa.slug} vs {pb.slug}")
        return render(request, "arena/head_to_head.html#round_cards", {"row": row, "cmp": cmp})
    ctx = {
        "arena": arena,
        "cmp": cmp,
        # a long head-to-head's rounds load their cards when opened (the page stays small)
        "lazy": pair_url
        if len(cmp.rows) > selectors.HEAD_TO_HEAD_INLINE and not open_all
        else None,
        "opened": opened,
        "products": products,
        "error": error,
        "fragment": _htmx_partial(request),
        "open_all": open_all,
        # the links that change one thing of the view and keep the other
        "diff_on": _h2h_view_query(diff=True, open_all=open_all),
        "diff_off": _h2h_view_query(diff=False, open_all=open_all),
        "open_on": _h2h_view_query(diff=diff, open_all=True),
        "open_off": _h2h_view_query(diff=diff, open_all=False),
    }
    if ctx["fragment"]:
        response = render(request, "arena/head_to_head.html#comparison", ctx, status=status)
        if status != 200:
            # htmx does not swap 4xx responses by default; tell it to, so the message shows in place
            response["HX-Reswap"] = "innerHTML"
        return push_url(response, pair_url + view)
    return render(request, "arena/head_to_head.html", ctx, status=status)


def _h2h_view_query(*, diff: bool, open_all: bool) -> str:
    """The query string of a head-to-head's view (``?diff=1&open=all``), or ``""``."""
    query = {"diff": "1"} if diff else {}
    if open_all:
        query["open"] = "all"
    return f"?{urlencode(query)}" if query else ""


@require_safe
def product_detail(request: HttpRequest, arena: str, product: str) -> HttpResponse:
    arena = _or_404(selectors.arena_get(slug=arena), f"arena {arena!r}")
    products = selectors.arena_product_list(arena=arena)  # (its head-to-head links list them)
    found = selectors.product_get(arena=arena, slug=product, products=products)
    product = _or_404(found, f"product {product!r}")
    ctx = {
        "arena": arena,
        "page": selectors.product_page_get(arena=arena, product=product),
        "products": products,
    }
    return render(request, "products/detail.html", ctx)


@require_safe
def story_detail(request: HttpRequest, arena: str, story: int) -> HttpResponse:
    arena = _or_404(selectors.arena_get(slug=arena), f"arena {arena!r}")
    story = _or_404(selectors.story_get(arena=arena, pk=story), f"story {story}")
    ctx = {"arena": arena, "story": story, "cells": selectors.story_cell_list(story=story)}
    return render(request, "stories/detail.html", ctx)


@require_safe
def cell_detail(request: HttpRequest, cell: int) -> HttpResponse:
    page = _or_404(selectors.cell_page_get(pk=cell), f"cell {cell}")
    ctx = {"page": page, "cell": page.cell, "arena": page.cell.story.arena}
    return render(request, "stories/cell.html", ctx)


@require_safe
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def arena_compare(request: HttpRequest, arena: str) -> HttpResponse:
    """Two to six products side by side (``?products=a,b,c`` or ``?products=a&products=b``, in
    that order; ``diff=1``: only the rounds that are not drawn). A pick that cannot be compared
    (unknown products, fewer than two, more than six) shows the picker with what is wrong, as a
    400; no pick at all shows the picker alone."""
    arena = _or_404(selectors.arena_get(slug=arena), f"arena {arena!r}")
    products = selectors.arena_product_list(arena=arena)
    slugs = _slug_list(request.GET, "products")
    diff = _params(request.GET, "diff")["diff"] == "1"
    pick = selectors.compare_pick(products=products, slugs=slugs)
    status = 200 if pick.ok or not slugs else 400
    cmp = (
        selectors.compare_many_get(arena=arena, products=pick.products, differences_only=diff)
        if pick.ok
        else None
    )
    page_url = reverse("arena-compare", args=[arena.slug])
    chosen = ",".join(p.slug for p in pick.products)
    ctx = {
        "arena": arena,
        "cmp": cmp,
        "pick": pick,
        "error": pick.error if slugs else "",
        "products": products,
        "chosen": {p.pk for p in pick.products},
        "page_url": page_url,
        "diff": diff,
        # the links that switch "differences only" and keep the products
        "all_url": _compare_url(page_url, chosen, diff=False),
        "diff_url": _compare_url(page_url, chosen, diff=True),
        "view_url": _compare_url(page_url, chosen, diff=diff),
        "fragment": _htmx_partial(request),
        "compare_min": selectors.COMPARE_MIN,
        "compare_max": selectors.COMPARE_MAX,
    }
    if ctx["fragment"]:
        response = render(request, "arena/compare.html#compare", ctx, status=status)
        if status != 200:
            # htmx does not swap 4xx responses by default; tell it to, so the message shows in place
            response["HX-Reswap"] = "innerHTML"
        # the address of what is shown, the products in the comma form
        return push_url(response, request.get_full_path() if cmp is None else ctx["view_url"])
    return render(request, "arena/compare.html", ctx, status=status)


def _compare_url(page_url: str, chosen: str, *, diff: bool) -> str:
    """A comparison's address: ``?products=a,b,c`` (slugs need no escaping), ``&diff=1``."""
    return f"{page_url}?products={chosen}{'&diff=1' if diff else ''}"
