"""Disputes as a reader sees them: a review item with only what is public of it (a flag's free
text, e-mail, token and client hash are not even read)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce

from arena.models import Arena
from flags.models import Flag, Reason, ReviewItem, Status
from products.models import Product
from stories.models import Story

OPEN, DECIDED = "open", "decided"
DISPUTE_STATES = (OPEN, DECIDED, Status.UPHELD.value, Status.REJECTED.value, Status.DUPLICATE.value)
DISPUTES_PER_PAGE = 25


class Dispute:
    """A review item (with its cell and correction) and its flags' reasons and proposals."""

    def __init__(self, item: ReviewItem) -> None:
        flags = list(item.flags.all())
        self.item, self.pk, self.status = item, item.pk, item.status
        self.pending = item.status == Status.PENDING
        self.opened_at, self.decided_at = item.created_at, item.resolved_at
        self.updated_at: datetime = item.resolved_at or item.created_at
        marked: dict[str, str] = {Status.PENDING: "", Status.DUPLICATE: "marked duplicate"}
        self.decision = marked.get(item.status, item.status)  # else "upheld" or "rejected"
        self.note = "" if self.pending else item.public_note
        self.change = item.change if item.status == Status.UPHELD else None
        self.direction = None if self.change is None else self.change.direction
        self.reason_codes = list(dict.fromkeys(f.reason for f in flags))
        self.reasons = [str(Reason(code).label) for code in self.reason_codes]
        self.proposals = list(dict.fromkeys(f.proposal_label for f in flags if f.proposal_label))
        self.affiliated = any(f.affiliated for f in flags)
        self.flag_count = len(flags)


@dataclass(frozen=True)
class DisputeFilters:
    product: Product | None = None
    story: Story | None = None
    state: str = ""  # one of DISPUTE_STATES, "" for every state


def _items() -> QuerySet[ReviewItem]:
    # the latest news first (a decision, else the opening)
    public = ("item", "reason", "proposed_verdict", "proposed_quality", "affiliated")
    return (
        ReviewItem.objects.select_related("change", "cell__story", "cell__product")
        .prefetch_related(Prefetch("flags", Flag.objects.only(*public)))
        .annotate(activity=Coalesce("resolved_at", "created_at"))
        .order_by("-activity", "-pk")
    )


def cell_dispute_list(*, cell_id: int) -> list[Dispute]:
    return [Dispute(item) for item in _items().filter(cell_id=cell_id)]


def _filtered(arena: Arena, filters: DisputeFilters) -> QuerySet[ReviewItem]:
    items = _items().filter(cell__story__arena=arena)
    if filters.product is not None:
        items = items.filter(cell__product=filters.product)
    if filters.story is not None:
        items = items.filter(cell__story=filters.story)
    if filters.state:
        states = {OPEN: Q(status=Status.PENDING), DECIDED: ~Q(status=Status.PENDING)}
        items = items.filter(states.get(filters.state, Q(status=filters.state)))
    return items


def arena_dispute_page(
    *, arena: Arena, filters: DisputeFilters, number: int | str = 1
) -> Page[Dispute]:
    """A page of the arena's disputes (out of range: the last one): three queries."""
    page: Page[Any] = Paginator(_filtered(arena, filters), DISPUTES_PER_PAGE).get_page(number)
    page.object_list = [Dispute(item) for item in page.object_list]
    return page


def arena_dispute_list(
    *, arena: Arena, filters: DisputeFilters, limit: int = DISPUTES_PER_PAGE
) -> list[Dispute]:
    """The arena's newest disputes (the feed's): two queries."""
    return [Dispute(item) for item in _filtered(arena, filters)[:limit]]


def arena_open_dispute_counts(*, arena: Arena) -> dict[int, int]:
    """Open disputes by product id (products without one left out): one query."""
    pending = ReviewItem.objects.filter(status=Status.PENDING, cell__story__arena=arena)
    return dict(pending.order_by().values_list("cell__product_id").annotate(n=Count("id")))
