"""The front door: the search, the "X vs Y" picker without JavaScript, the 404, the API reference."""

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

from arena.selectors.arenas import arena_get, arena_list, arena_product_pair_get
from arena.selectors.search import SEARCH_LIMIT, known_pages, site_search
from core.text import clean_text
from web import params
from web.pages import front
from web.params import PICK_ARENA, SEARCH_Q, A, B, HtmxHttpRequest

SEARCH_MAX_LENGTH = 100  # longer is refused, not cut
SEARCH_MIN_CHARS = 2  # letters or digits (one letter finds everything)


def search_problem(text: str) -> str:
    """Why ``text`` cannot be searched for, "" when it can."""
    if not text:
        return "Type a word or two to search for."
    if len(text) > SEARCH_MAX_LENGTH:
        return f"A search is at most {SEARCH_MAX_LENGTH} characters; try fewer words."
    if sum(c.isalnum() for c in text) < SEARCH_MIN_CHARS:
        return f"Search for a word of at least {SEARCH_MIN_CHARS} letters or digits."
    return ""


@require_safe
def search(request: HtmxHttpRequest) -> HttpResponse:
    """The arenas, products and stories the words find; an unusable search is a 400 saying why."""
    text = " ".join(clean_text(request.GET.get(SEARCH_Q.name) or "").split())
    problem = search_problem(text) if SEARCH_Q.name in request.GET else ""
    ctx = {
        # what was typed, shown again in the box (cleaned of control characters, cut)
        "q": params.text(request.GET, SEARCH_Q)[:SEARCH_MAX_LENGTH] if problem else text,
        "problem": problem,
        "results": site_search(text) if text and not problem else None,
        "limit": SEARCH_LIMIT,
    }
    return render(request, "arena/search.html", ctx, status=400 if problem else 200)


@require_safe
def pick_pair(request: HtmxHttpRequest) -> HttpResponse:
    """Redirects to the pair's head-to-head; a bad pick is a 400, an unknown one a 404."""
    query = request.GET
    slug, a, b = (clean_text(query.get(p.name) or "").strip()[:120] for p in (PICK_ARENA, A, B))
    if not (slug and a and b):
        return _pick_problem(request, "Pick an arena and two of its products.", 400)
    if not all(params.SLUG.fullmatch(s) for s in (slug, a, b)):
        return _pick_problem(request, "Pick the arena and the products from the lists.", 400)
    if a == b:
        return _pick_problem(request, "Pick two different products to compare.", 400)
    if (arena := arena_get(slug=slug)) is None:
        return _pick_problem(request, f"There is no arena {slug!r}.", 404)
    pair = arena_product_pair_get(arena=arena, a=a, b=b)
    if missing := [s for s in (a, b) if s not in pair]:
        return _pick_problem(request, f"{arena.name} has no product {missing[0]!r}.", 404)
    return redirect(reverse("head-to-head", args=[arena.slug, a, b]))


def _pick_problem(request: HttpRequest, message: str, status: int) -> HttpResponse:
    ctx = {"message": message, "arenas": arena_list()}
    return render(request, "arena/pick_problem.html", ctx, status=status)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``: the pages nearest to the missing address, and the search form."""
    known = known_pages(arena=front.arena_named(request.path))
    ctx = {"request_path": request.path, "suggestions": front.suggestions(request.path, known)}
    return render(request, "404.html", ctx, status=404)


@functools.cache
def api_schema() -> dict[str, Any]:
    # the schema changes only with the code: built once per process (it walks every API view)
    return SchemaGenerator().get_schema(request=None, public=True)


class ApiDocsView(SpectacularSwaggerSplitView):
    """The API reference: every endpoint from the schema, then Swagger UI with no inline script."""

    template_name = "api/docs.html"

    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response: Response = super().get(request, *args, **kwargs)
        if isinstance(response.data, dict) and "script_url" in response.data:
            response.data["endpoints"] = front.api_endpoints(api_schema())
        return response
