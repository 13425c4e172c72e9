from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from arena import selectors
from arena.api import serializers as s
from arena.models import Arena


def _arena(slug: str) -> Arena:
    """The arena, or the API's 404."""
    arena = selectors.arena_get(slug)
    if arena is None:
        raise NotFound(f"No arena {slug!r}")
    return arena


def _story(story) -> dict:
    return {
        "id": story.pk,
        "text": story.text,
        "persona": story.persona.slug,
        "category": story.category.name,
        "group": story.subgroup.name if story.subgroup_id else None,
        "weight": story.weight,
    }


def _cell(cell, detail: bool = False) -> dict:
    out = {"id": cell.pk, "verdict": cell.verdict, "proof": cell.proof, "quality": cell.quality}
    if detail:
        out["rationale"] = cell.rationale
        out["detail_published"] = cell.detail_published
        out["evidence"] = [{"source": e.source, "quote": e.quote} for e in cell.evidence.all()]
    return out


class ArenaViewSet(viewsets.ViewSet):
    """Arenas, their stored leaderboard, matrix and head-to-head comparisons (read-only, anonymous)."""

    permission_classes = [AllowAny]
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"

    @extend_schema(responses={200: s.ArenaListSerializer(many=True), **s.error_responses(429)})
    def list(self, request):
        return Response(s.ArenaListSerializer(selectors.arena_list(), many=True).data)

    @extend_schema(responses={200: s.ArenaDetailSerializer, **s.error_responses(404, 429)})
    def retrieve(self, request, slug=None):
        arena = _arena(slug)
        products = selectors.arena_products(arena)
        data = {
            "slug": arena.slug,
            "name": arena.name,
            "description": arena.description,
            "story_count": arena.story_count,
            "cell_count": arena.cell_count,
            "updated": arena.updated,
            "evidence_as_of": arena.evidence_as_of,
            "scores_computed_at": arena.scores_computed_at,
            "scores_pending": arena.scores_pending,
            "products": products,
            "leaderboard": selectors.arena_scores(arena),
            "personas": selectors.arena_persona_results(arena),
        }
        return Response(s.ArenaDetailSerializer(data).data)

    @extend_schema(responses={200: s.MatrixSerializer, **s.error_responses(404, 429)})
    @action(detail=True, methods=["get"])
    def matrix(self, request, slug=None):
        matrix = selectors.arena_matrix(_arena(slug))
        data = {
            "products": [p.slug for p in matrix.products],
            "stories": [
                {**_story(r.story), "cells": {c.product.slug: _cell(c) for c in r.cells}}
                for r in matrix.rows
            ],
        }
        return Response(s.MatrixSerializer(data).data)

    @extend_schema(responses={200: s.CompareSerializer, **s.error_responses(404, 429)})
    @action(
        detail=True,
        methods=["get"],
        url_path=r"compare/(?P<a>[-a-zA-Z0-9_]+)/(?P<b>[-a-zA-Z0-9_]+)",
    )
    def compare(self, request, slug=None, a=None, b=None):
        arena = _arena(slug)
        pair = selectors.arena_products_by_slug(arena, [a, b])
        for wanted in (a, b):
            if wanted not in pair:
                raise NotFound(f"No product {wanted!r} in {arena.slug}")
        if a == b:
            raise NotFound("A product is not compared with itself.")
        pa, pb = pair[a], pair[b]
        cmp = selectors.head_to_head_get(arena, pa, pb)
        data = {
            "products": [pa.slug, pb.slug],
            "summary": {
                **{
                    k: v
                    for k, v in cmp.summary.as_dict().items()
                    if k not in ("won", "weighted", "leader")
                },
                "won": {pa.slug: cmp.summary.won_a, pb.slug: cmp.summary.won_b},
                "weighted": {pa.slug: cmp.summary.weighted_a, pb.slug: cmp.summary.weighted_b},
                "leader": {pa.pk: pa.slug, pb.pk: pb.slug}.get(cmp.summary.leader, "drawn"),
            },
            "stories": [
                {
                    **_story(r.story),
                    "number": r.number,
                    "round": r.round,
                    "cells": {pa.slug: _cell(r.cell_a, True), pb.slug: _cell(r.cell_b, True)},
                }
                for r in cmp.rows
            ],
        }
        return Response(s.CompareSerializer(data).data)
