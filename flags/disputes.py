"""Disputes as a reader sees them (the arena's disputes page, JSON and feed, the open counts, a
cell's page): each review item with only what is public of it. Never a flag's free text, e-mail,
token or client hash: those columns are not even read. A few queries whatever the number."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from django.core.paginator import Page, Paginator
from django.db.models import Count, QuerySet
from django.db.models.functions import Coalesce

from arena import scoring
from arena.models import Arena
from flags.models import Flag, Reason, ReviewItem, Status
from products.models import Product
from stories.models import CellChange, Story

OPEN, DECIDED = "open", "decided"
DISPUTE_STATES = (OPEN, DECIDED, Status.UPHELD.value, Status.REJECTED.value, Status.DUPLICATE.value)
DISPUTES_PER_PAGE = 25


@dataclass
class Dispute:
    """One review item as the public pages show it; ``flags``: each flag's reason code, proposal
    ("" for none) and whether it was filed by the vendor."""

    item: ReviewItem  # with its cell (story, product) and its correction (``change``) read
    flags: list[tuple[str, str, bool]] = field(default_factory=list)

    @property
    def pk(self) -> int:
        return self.item.pk

    @property
    def status(self) -> str:
        return self.item.status

    @property
    def pending(self) -> bool:
        return self.item.status == Status.PENDING

    @property
    def opened_at(self) -> datetime:
        return self.item.created_at

    @property
    def decided_at(self) -> datetime | None:
        return self.item.resolved_at

    @property
    def updated_at(self) -> datetime:
        return self.item.resolved_at or self.item.created_at

    @property
    def decision(self) -> str:
        """``upheld``, ``rejected``, ``marked duplicate``; "" while pending."""
        if self.pending:
            return ""
        return "marked duplicate" if self.status == Status.DUPLICATE else str(self.status)

    @property
    def note(self) -> str:
        return "" if self.pending else self.item.public_note

    @property
    def change(self) -> CellChange | None:
        return self.item.change if self.status == Status.UPHELD else None

    @property
    def direction(self) -> scoring.Direction | None:
        return None if self.change is None else self.change.direction

    @property
    def reason_codes(self) -> list[str]:
        return list(dict.fromkeys(reason for reason, _, _ in self.flags))

    @property
    def reasons(self) -> list[str]:
        return [str(Reason(code).label) for code in self.reason_codes]

    @property
    def proposals(self) -> list[str]:
        return list(dict.fromkeys(proposal for _, proposal, _ in self.flags if proposal))

    @property
    def affiliated(self) -> bool:
        return any(affiliated for _, _, affiliated in self.flags)

    @property
    def flag_count(self) -> int:
        return len(self.flags)


@dataclass(frozen=True)
class DisputeFilters:
    product: Product | None = None
    story: Story | None = None
    state: str = ""  # one of DISPUTE_STATES, "" for every state


def _items() -> QuerySet[ReviewItem]:
    """The latest news first (a decision, else the opening)."""
    return (
        ReviewItem.objects.select_related("change", "cell__story", "cell__product")
        .annotate(activity=Coalesce("resolved_at", "created_at"))
        .order_by("-activity", "-pk")
    )


def _with_flags(items: Sequence[ReviewItem]) -> list[Dispute]:
    """The items as disputes with their flags' public columns: one query (none for no item)."""
    disputes = {item.pk: Dispute(item) for item in items}
    if disputes:
        rows = (
            Flag.objects.filter(item_id__in=list(disputes))
            .order_by("created_at", "pk")
            .values_list("item_id", "reason", "proposed_verdict", "proposed_quality", "affiliated")
        )
        for item_id, reason, verdict, quality, affiliated in rows:
            proposal = Flag(proposed_verdict=verdict, proposed_quality=quality).proposal_label
            disputes[item_id].flags.append((reason, proposal, affiliated))
    return list(disputes.values())


def cell_dispute_list(*, cell_id: int) -> list[Dispute]:
    return _with_flags(list(_items().filter(cell_id=cell_id)))


def _filtered(arena: Arena, filters: DisputeFilters) -> QuerySet[ReviewItem]:
    items = _items().filter(cell__story__arena=arena)
    if filters.product is not None:
        items = items.filter(cell__product=filters.product)
    if filters.story is not None:
        items = items.filter(cell__story=filters.story)
    if filters.state == OPEN:
        items = items.filter(status=Status.PENDING)
    elif filters.state == DECIDED:
        items = items.exclude(status=Status.PENDING)
    elif filters.state:
        items = items.filter(status=filters.state)
    return items


class DisputePage(NamedTuple):
    page: Page[ReviewItem]
    disputes: list[Dispute]


def arena_dispute_page(
    *, arena: Arena, filters: DisputeFilters, number: int | str = 1
) -> DisputePage:
    """A page of the arena's disputes (out of range: the last one): three queries."""
    page = Paginator(_filtered(arena, filters), DISPUTES_PER_PAGE).get_page(number)
    return DisputePage(page, _with_flags(list(page.object_list)))


def arena_dispute_list(
    *, arena: Arena, filters: DisputeFilters, limit: int = DISPUTES_PER_PAGE
) -> list[Dispute]:
    """The arena's newest disputes (the feed's): two queries."""
    return _with_flags(list(_filtered(arena, filters)[:limit]))


def arena_open_dispute_counts(*, arena: Arena) -> dict[int, int]:
    """Open disputes by product id (products without one left out): one query."""
    counts = (
        ReviewItem.objects.filter(status=Status.PENDING, cell__story__arena=arena)
        .order_by()
        .values_list("cell__product_id")
        .annotate(n=Count("id"))
    )
    return dict(counts)
