"""The front door's views: the site search, the home page's "X vs Y" picker (its redirect without
JavaScript), the 404 that suggests a way on, and the API reference inside the site's pages."""

from __future__ import annotations

import functools
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response

from arena import selectors
from arena.selectors.search import SEARCH_LIMIT, known_pages, site_search
from web import params
from web.pages import front
from web.params import SEARCH_Q, HtmxHttpRequest
from web.params.search import SEARCH_MAX_LENGTH, PairPicked, SearchAsked


@require_safe
def search(request: HtmxHttpRequest) -> HttpResponse:
    """``/search/?q=…``: the arenas, products and stories the words find, grouped by kind; an
    empty, too long or wordless search is a 400 saying what to type instead."""
    asked = SearchAsked.of(request.GET)
    results = site_search(asked.text) if asked.text else None
    ctx = {
        # what was typed, shown again in the box (cleaned of control characters, cut)
        "q": asked.text or params.text(request.GET, SEARCH_Q)[:SEARCH_MAX_LENGTH],
        "asked": asked,
        "results": results,
        "limit": SEARCH_LIMIT,
    }
    return render(request, "arena/search.html", ctx, status=400 if asked.problem else 200)


@require_safe
def pick_pair(request: HtmxHttpRequest) -> HttpResponse:
    """The "X vs Y" picker's form without JavaScript: its arena and two products, redirected to
    their head-to-head; the same product twice is a 400, an unknown arena or product a 404, each
    with a message and the way back."""
    picked = PairPicked.of(request.GET)
    if picked.problem:
        return _pick_problem(request, picked.problem, 400)
    arena = selectors.arena_get(slug=picked.arena)
    if arena is None:
        return _pick_problem(request, f"There is no arena {picked.arena!r}.", 404)
    pair = selectors.arena_product_pair_get(arena=arena, a=picked.a, b=picked.b)
    missing = [s for s in (picked.a, picked.b) if s not in pair]
    if missing:
        message = f"{arena.name} has no product {missing[0]!r}."
        return _pick_problem(request, message, 404)
    return redirect(reverse("head-to-head", args=[arena.slug, picked.a, picked.b]))


def _pick_problem(request: HttpRequest, message: str, status: int) -> HttpResponse:
    ctx = {"message": message, "arenas": selectors.arena_list()}
    return render(request, "arena/pick_problem.html", ctx, status=status)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """The site's 404 (``handler404``, and with ``DEBUG_SITE_404`` in DEBUG too): the arenas,
    products and stories nearest to the missing address, and the search form."""
    known = known_pages(arena=front.arena_named(request.path))
    ctx: dict[str, Any] = {
        "request_path": request.path,
        "suggestions": front.suggestions(request.path, known),
    }
    return render(request, "404.html", ctx, status=404)


@functools.cache
def _api_schema() -> dict[str, Any]:
    # the schema changes only with the code: built once per process (it takes most of a second)
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


class ApiDocsView(SpectacularSwaggerSplitView):
    """The API reference inside the site's header, navigation and footer: every endpoint written
    out from the OpenAPI schema (no JavaScript needed), and the interactive Swagger UI from our
    static files below it, whose set-up script is the split view's own (``?script``), so no
    inline script is needed."""

    template_name = "api/docs.html"

    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response: Response = super().get(request, *args, **kwargs)
        if isinstance(response.data, dict) and "script_url" in response.data:
            response.data["endpoints"] = front.api_endpoints(_api_schema())
        return response
