"""An arena's disputes in the open, page and JSON; a filter that names nothing is a 400."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from arena.selectors.arenas import CountedArena, arena_product_list
from flags.disputes import DISPUTE_STATES, Dispute, DisputeFilters, arena_dispute_page
from products.models import Product
from stories.models import Story
from web import params
from web.params import HtmxHttpRequest, fragment_asked
from web.views.common import arena_or_404, swapped


@dataclass(frozen=True)
class DisputesRead:
    """An arena's disputes as a request asks for them; any problem makes the page a 400."""

    arena: CountedArena
    filters: DisputeFilters
    problems: list[str]
    page: str
    products: list[Product]

    def url(self, page: int = 1, story: bool = True) -> str:
        f = self.filters
        pairs = [
            ("product", f.product.slug if f.product else ""),
            ("story", str(f.story.pk) if f.story and story else ""),
            ("state", f.state),
            ("page", str(page) if page > 1 else ""),
        ]
        query = params.query_string([(name, value) for name, value in pairs if value])
        return reverse("arena-disputes", args=[self.arena.slug]) + query


def disputes_read(query: QueryDict, slug: str) -> DisputesRead:
    """The filters asked for, read against the arena; each naming nothing of it is a problem."""
    arena = arena_or_404(slug)
    products = arena_product_list(arena=arena)
    problems = []
    asked = params.text(query, params.DISPUTE_PRODUCT).strip()
    product = next((p for p in products if p.slug == asked), None)
    if asked and product is None:
        problems.append(f"No product {asked[:60]!r} in this arena.")
    asked = params.text(query, params.DISPUTE_STORY).strip()
    number = params.record_id(asked) if asked else None
    story = Story.objects.filter(arena=arena, pk=number).first() if number else None
    if asked and number is None:
        problems.append("A story is given by its number (?story=12).")
    elif number and story is None:
        problems.append(f"No story {number} in this arena.")
    state = params.text(query, params.DISPUTE_STATE).strip()
    if state and state not in DISPUTE_STATES:
        problems.append(f"A state is one of: {', '.join(DISPUTE_STATES)}.")
        state = ""
    page = params.text(query, params.PAGE).strip()
    return DisputesRead(arena, DisputeFilters(product, story, state), problems, page, products)


@require_safe
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def arena_disputes(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    read = disputes_read(request.GET, arena)
    page = arena_dispute_page(arena=read.arena, filters=read.filters, number=read.page or 1)
    ctx: dict[str, Any] = {
        "arena": read.arena,
        "page": page,
        "filters": read.filters,
        "problems": read.problems,
        "products": read.products,
        "states": DISPUTE_STATES,
        "page_url": read.url(page.number),
        "newer_url": read.url(page.previous_page_number()) if page.has_previous() else "",
        "older_url": read.url(page.next_page_number()) if page.has_next() else "",
        "all_url": reverse("arena-disputes", args=[read.arena.slug]),
        "every_story_url": read.url(story=False),
    }
    status = 400 if read.problems else 200
    if fragment_asked(request.htmx):
        response = render(request, "arena/disputes.html#dispute-list", ctx, status=status)
        return swapped(response, ctx["page_url"])
    return render(request, "arena/disputes.html", ctx, status=status)


def dispute_data(d: Dispute) -> dict[str, Any]:
    cell, change, direction = d.item.cell, d.change, d.direction
    correction = None
    if change is not None and direction is not None:
        correction = {
            "old": change.old_value.label(),
            "new": change.new_value.label(),
            "direction": direction.value,
            "direction_label": direction.label,
        }
    return {
        "id": d.pk,
        "cell": cell.pk,
        "url": reverse("cell-detail", args=[cell.pk]) + f"#dispute-{d.pk}",
        "product": cell.product.slug,
        "story": cell.story_id,
        "story_text": cell.story.text,
        "state": d.status,
        "opened_at": d.opened_at.isoformat(),
        "decided_at": d.decided_at.isoformat() if d.decided_at else None,
        "flags": d.flag_count,
        "reasons": d.reason_codes,
        "proposals": d.proposals,
        "filed_by_vendor": d.affiliated,
        "note": d.note,
        "correction": correction,
    }


@require_safe
def arena_disputes_json(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    read = disputes_read(request.GET, arena)
    if read.problems:
        return JsonResponse({"detail": " ".join(read.problems)}, status=400)
    page = arena_dispute_page(arena=read.arena, filters=read.filters, number=read.page or 1)
    f = read.filters
    return JsonResponse(
        {
            "arena": read.arena.slug,
            "filters": {
                "product": f.product.slug if f.product else None,
                "story": f.story.pk if f.story else None,
                "state": f.state or None,
            },
            "count": page.paginator.count,
            "page": page.number,
            "pages": page.paginator.num_pages,
            "disputes": [dispute_data(d) for d in page.object_list],
        },
        json_dumps_params={"ensure_ascii": False},
    )
