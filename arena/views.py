"""The public pages. Each view loads through ``arena.selectors`` (a fixed number of queries) and
renders one template; htmx requests get one named partial of the same template."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from arena import selectors

# The regions of the arena page that htmx swaps in place (the ids of their elements).
ARENA_PARTIALS = ("leaderboard", "matrix")


def _htmx_partial(request: HttpRequest) -> bool:
    """Whether to answer with a fragment: an htmx request that is not a boosted navigation or a
    history restore (both of which need the whole page)."""
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/home.html", {"arenas": selectors.arena_list()})


@require_GET
def methodology(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/methodology.html")


@require_GET
@vary_on_headers("HX-Request", "HX-Target", "HX-History-Restore-Request")
def arena_detail(request: HttpRequest, arena: str) -> HttpResponse:
    arena = selectors.arena_get(arena)
    filters = selectors.MatrixFilters.from_query(request.GET)
    rank = request.GET.get("rank") or "pa"
    partial = None
    if _htmx_partial(request):
        partial = request.htmx.target
        if partial not in ARENA_PARTIALS:
            partial = "matrix" if filters.active else "leaderboard"
    ctx = {
        "arena": arena,
        "arena_url": arena.get_absolute_url(),
        "cell_count": arena.story_count * arena.product_count,
        "filters": filters,
        "rank": rank,
        "fragment": partial is not None,
    }
    if partial == "leaderboard":
        ctx["board"] = selectors.leaderboard(arena, rank)
    elif partial == "matrix":
        ctx["matrix"] = selectors.matrix(arena, filters)
    else:
        categories = selectors.arena_categories(arena)
        ctx["board"] = selectors.leaderboard(arena, rank, [c.name for c in categories])
        ctx["matrix"] = selectors.matrix(arena, filters, categories=categories)
        ctx["persona_results"] = selectors.arena_persona_results(arena)
        ctx["adjacent"] = selectors.adjacent_with_links(arena)
    template = "arena/detail.html" + (f"#{partial}" if partial else "")
    return render(request, template, ctx)


@require_GET
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def head_to_head(request: HttpRequest, arena: str, a: str, b: str) -> HttpResponse:
    arena = selectors.arena_get(arena)
    error = ""
    # The pair picker is a plain GET form (?a=…&b=…) on the current head-to-head.
    pick_a, pick_b = request.GET.get("a"), request.GET.get("b")
    if pick_a and pick_b and (pick_a, pick_b) != (a, b):
        if pick_a == pick_b:
            error = "Pick two different products."
        else:
            a, b = pick_a, pick_b
            if not _htmx_partial(request):
                return redirect("head-to-head", arena=arena.slug, a=a, b=b)
    pa, pb = selectors.pair_get(arena, a, b)
    ctx = {
        "arena": arena,
        "cmp": selectors.comparison(arena, pa, pb),
        "products": selectors.arena_products(arena),
        "error": error,
        "fragment": _htmx_partial(request),
    }
    if ctx["fragment"]:
        response = render(request, "arena/head_to_head.html#comparison", ctx)
        return push_url(response, reverse("head-to-head", args=[arena.slug, pa.slug, pb.slug]))
    return render(request, "arena/head_to_head.html", ctx)


@require_GET
def product_detail(request: HttpRequest, arena: str, product: str) -> HttpResponse:
    arena = selectors.arena_get(arena)
    product = selectors.product_get(arena, product)
    ctx = {
        "arena": arena,
        "page": selectors.product_page(arena, product),
        "products": selectors.arena_products(arena),
    }
    return render(request, "products/detail.html", ctx)


@require_GET
def story_detail(request: HttpRequest, arena: str, story: int) -> HttpResponse:
    arena = selectors.arena_get(arena)
    story = selectors.story_get(arena, story)
    ctx = {"arena": arena, "story": story, "cells": selectors.story_cells(story)}
    return render(request, "stories/detail.html", ctx)


@require_GET
def cell_detail(request: HttpRequest, cell: int) -> HttpResponse:
    page = selectors.cell_page(cell)
    ctx = {"page": page, "cell": page.cell, "arena": page.cell.story.arena}
    return render(request, "stories/cell.html", ctx)
