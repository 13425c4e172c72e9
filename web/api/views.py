from typing import Any

from django.core.paginator import Paginator
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from arena.selectors.arenas import (
    arena_counted,
    arena_list,
    arena_persona_result_list,
    arena_product_list,
    arena_product_pair_get,
)
from arena.selectors.compare import compare_pick, comparison_get
from arena.selectors.leaderboard import arena_leaderboard, arena_score_list
from arena.selectors.matrix import arena_matrix
from core.text import SLUG_CHARS
from web import params
from web.api import serializers as s
from web.api.errors import error_responses
from web.views.common import arena_or_404

PAGE_HELP = "A page of 50 arenas: 1, 2 and so on (out of range the last; no number the first)."
MATRIX_PAGE = 100  # stories a page of the API's matrix holds: its size stays in megabytes
MATRIX_PAGE_HELP = PAGE_HELP.replace("50 arenas", f"{MATRIX_PAGE} stories")
WEIGHTS_HELP = (
    "Your weights, `<key>:<level>` separated by commas: a key is a category's slug "
    "or a user type (persona); a level is 0 (ignore), 1 (normal, the default), "
    "2 (important) or 3 (critical), multiplying the weights of that category's or "
    "user type's stories. The leaderboard is then ranked by each product's score "
    "with those weights (`personal_score`; `rank` is the place in that ranking, "
    "`published_rank` the published one) and the weights are echoed. "
    "Example: `privacy-posture:3,agenticness:0`."
)


class ArenaPages(PageNumberPagination):
    page_size = 50  # however many arenas: each page's answer stays small

    def get_page_number(self, request: Request, paginator: Any) -> Any:  # as the site's pages
        return paginator.get_page(request.query_params.get(self.page_query_param)).number


class ArenaViewSet(viewsets.ViewSet):
    """Arenas, their stored leaderboard, matrix and head-to-head comparisons (read-only, anonymous)."""

    permission_classes = [AllowAny]
    authentication_classes: list[type] = []  # no session: no cookie, no Vary; cached like pages
    lookup_field = "slug"
    lookup_value_regex = SLUG_CHARS

    @extend_schema(
        parameters=[OpenApiParameter(params.PAGE.name, str, description=PAGE_HELP)],
        responses={200: s.ArenaPageSerializer, **error_responses(429)},
    )
    def list(self, request: Request) -> Response:
        pages = ArenaPages()
        listed = pages.paginate_queryset(arena_list(), request, view=self) or []
        arenas = arena_counted(arenas=listed)
        return pages.get_paginated_response(s.ArenaListSerializer(arenas, many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(params.WEIGHTS.name, str, description=WEIGHTS_HELP, required=False)
        ],
        responses={200: s.ArenaDetailSerializer, **error_responses(400, 404, 429)},
    )
    def retrieve(self, request: Request, slug: str = "") -> Response:
        arena = arena_or_404(slug)
        text = params.text(request.query_params, params.WEIGHTS, None)
        if len(text) > params.WEIGHTS_MAX_LENGTH:
            raise ValidationError({params.WEIGHTS.name: ["Too long."]})
        detail: dict[str, Any] = {
            "arena": arena,
            "products": arena_product_list(arena=arena),
            "personas": arena_persona_result_list(arena=arena),
        }
        if text.strip():
            # read against the stored scores' categories and personas (no query of their own)
            board = arena_leaderboard(arena=arena, asked=params.weights_parse(text), stale=False)
            if board.weights_ignored:
                ignored = "; ".join(board.weights_ignored)
                how = "Write <category or user type>:<0-3>, separated by commas."
                raise ValidationError({params.WEIGHTS.name: [f"Not understood: {ignored}. {how}"]})
            detail["leaderboard"] = board.rows
            if board.reading is not None:
                detail["weights"] = board.reading.by_kind("category")
                detail["persona_weights"] = board.reading.by_kind("persona")
        else:
            detail["leaderboard"] = arena_score_list(arena=arena)
        return Response(s.ArenaDetailSerializer(detail).data)

    @extend_schema(
        parameters=[OpenApiParameter(params.PAGE.name, str, description=MATRIX_PAGE_HELP)],
        responses={200: s.MatrixSerializer, **error_responses(404, 429)},
    )
    @action(detail=True, methods=["get"])
    def matrix(self, request: Request, slug: str = "") -> Response:
        arena = arena_or_404(slug)
        pages = Paginator(range(arena.story_count), MATRIX_PAGE)
        page = pages.get_page(request.query_params.get(params.PAGE.name))
        shown = slice(max(0, page.start_index() - 1), page.end_index())
        matrix = arena_matrix(arena=arena, stories=shown)
        following = f"{request.path}?page={page.number + 1}" if page.has_next() else None
        data = {"products": matrix.products, "rows": matrix.rows, "count": pages.count}
        data |= {"page": page.number, "pages": pages.num_pages}
        data["next"] = request.build_absolute_uri(following) if following else None
        return Response(s.MatrixSerializer(data).data)

    @extend_schema(responses={200: s.CompareSerializer, **error_responses(404, 429)})
    @action(
        detail=True, methods=["get"], url_path=rf"compare/(?P<a>{SLUG_CHARS})/(?P<b>{SLUG_CHARS})"
    )
    def compare(self, request: Request, slug: str = "", a: str = "", b: str = "") -> Response:
        arena = arena_or_404(slug)
        pair = arena_product_pair_get(arena=arena, a=a, b=b)
        for wanted in (a, b):
            if wanted not in pair:
                raise NotFound(f"No product {wanted!r} in {arena.slug}")
        if a == b:
            raise NotFound("A product is not compared with itself.")
        cmp = comparison_get(arena=arena, products=[pair[a], pair[b]], evidence=True)
        return Response(s.CompareSerializer(cmp).data)

    @extend_schema(
        operation_id="arenas_compare_many",  # (the pair's route keeps its own id)
        parameters=[
            OpenApiParameter(
                params.PRODUCTS.name,
                {
                    "type": "array",
                    "items": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
                    "minItems": 2,
                    "maxItems": 6,
                    "uniqueItems": True,
                },
                required=True,
                style="form",
                explode=False,
                description="Two to six product slugs, comma-separated (`a,b,c`) or repeated "
                "(`products=a&products=b`); the products are shown in that order.",
            )
        ],
        responses={200: s.CompareManySerializer, **error_responses(400, 404, 429)},
    )
    @action(detail=True, methods=["get"], url_path="compare", url_name="compare-many")
    def compare_many(self, request: Request, slug: str = "") -> Response:
        """Two to six products side by side: stored scores and each story's best verdicts."""
        arena = arena_or_404(slug)
        slugs = params.items(request.query_params, params.PRODUCTS, None)
        picked, error = compare_pick(products=arena_product_list(arena=arena), slugs=slugs)
        if error:
            raise ValidationError({params.PRODUCTS.name: [error]})
        cmp = comparison_get(arena=arena, products=picked)
        return Response(s.CompareManySerializer(cmp).data)
