"""An arena's verification queue, page and JSON: unverified cells by the close calls they settle."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from arena.selectors.arenas import CountedArena, arena_product_list
from arena.selectors.settle import VerifyQueue, verify_queue_get
from web import params
from web.views.common import arena_or_404


def _queue(request: HttpRequest, arena: str, listed: bool) -> tuple[CountedArena, VerifyQueue]:
    found = arena_or_404(arena)
    products = arena_product_list(arena=found)
    number = params.text(request.GET, params.PAGE)
    return found, verify_queue_get(arena=found, products=products, number=number, listed=listed)


@require_safe
def arena_verify(request: HttpRequest, arena: str) -> HttpResponse:
    found, queue = _queue(request, arena, listed=False)
    return render(request, "arena/verify.html", {"arena": found, "queue": queue})


@require_safe
def arena_verify_json(request: HttpRequest, arena: str) -> HttpResponse:
    found, queue = _queue(request, arena, listed=True)
    page = queue.page
    return JsonResponse(
        {
            "arena": found.slug,
            "close_calls": [
                {
                    "leader": p.leader.slug,
                    "trailer": p.trailer.slug,
                    "settle": list(p.settle),
                    "settle_count": p.count,
                    "exact": p.exact,
                }
                for p in queue.close
            ],
            "count": page.paginator.count,
            "page": page.number,
            "pages": page.paginator.num_pages,
            "next": f"{request.path}?page={page.next_page_number()}" if page.has_next() else None,
            "cells": [
                {
                    "cell": i.cell.pk,
                    "product": i.cell.product.slug,
                    "story": i.cell.story_id,
                    "story_text": i.cell.story.text,
                    "verdict": i.cell.verdict,
                    "proof": i.cell.proof,
                    "quality": i.cell.quality,
                    "settles": [[p.leader.slug, p.trailer.slug] for p in i.pairs],
                    "url": reverse("cell-detail", args=[i.cell.pk]),
                    "flag_url": reverse("flag-create", args=[i.cell.pk]),
                }
                for i in queue.items
            ],
        },
        json_dumps_params={"ensure_ascii": False},
    )
