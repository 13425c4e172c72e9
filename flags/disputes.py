"""Disputes as a reader sees them (the arena's disputes page, JSON and feed, the open counts on
its pages, a cell's page): each review item of a cell (a batch of flags, decided together)
with only what is public of it. A pending dispute shows when it was opened, its reasons and the
verdicts proposed; a decided one also its decision, its date, the moderator's public note and, when
upheld, the correction (before → after, and which way it went). Never a flag's free text (its
explanation, its source URL), its e-mail, token or client hash: those columns are not even read.

A few queries whatever the number of disputes: the items with their cell and correction, then the
flags' public columns for the items shown; the open counts per product are one aggregate."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.db.models import Count, QuerySet
from django.db.models.functions import Coalesce

from arena import scoring
from arena.models import Arena
from flags.models import Flag, Reason, ReviewItem, Status
from products.models import Product
from stories.models import CellChange, Story

# A dispute's state as the disputes page filters it: open (pending), decided (any decision), or one
# decision.
OPEN = "open"
DECIDED = "decided"
DISPUTE_STATES = (OPEN, DECIDED, Status.UPHELD.value, Status.REJECTED.value, Status.DUPLICATE.value)
# Disputes on one page of the arena's list (and the newest in its feed and JSON).
DISPUTES_PER_PAGE = 25

# Only these columns of a flag are read for the public (see the module's docstring).
_PUBLIC_FLAG_FIELDS = ("item_id", "reason", "proposed_verdict", "proposed_quality", "affiliated")


@dataclass(frozen=True)
class FlagShown:
    """What is public of one flag: why it was filed and what it proposed (never its text)."""

    reason: str  # its code (``flags.models.Reason``)
    proposal: str  # ``partial 5/10``, ``verdict unchanged, 5/10``; "" when it proposes nothing
    affiliated: bool  # the reporter declared working for or with the product's vendor


@dataclass
class Dispute:
    """One review item as the public pages show it."""

    item: ReviewItem  # with its cell (story, product) and its correction (``change``) read
    flags: list[FlagShown] = field(default_factory=list)

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
    def decision(self) -> str:
        """``upheld``, ``rejected``, ``marked duplicate``; "" while pending."""
        if self.pending:
            return ""
        return "marked duplicate" if self.status == Status.DUPLICATE else str(self.status)

    @property
    def note(self) -> str:
        """The moderator's public note (nothing before a decision)."""
        return "" if self.pending else self.item.public_note

    @property
    def change(self) -> CellChange | None:
        """The correction an upheld dispute made."""
        return self.item.change if self.status == Status.UPHELD else None

    @property
    def direction(self) -> scoring.Direction | None:
        change = self.change
        return None if change is None else change.direction

    @property
    def reason_codes(self) -> list[str]:
        return _once(f.reason for f in self.flags)

    @property
    def reasons(self) -> list[str]:
        """The flags' reasons in words, each once."""
        return [str(Reason(code).label) for code in self.reason_codes]

    @property
    def proposals(self) -> list[str]:
        return _once(f.proposal for f in self.flags if f.proposal)

    @property
    def affiliated(self) -> bool:
        """Some flag in it was filed by someone who declared an affiliation with the vendor."""
        return any(f.affiliated for f in self.flags)

    @property
    def flag_count(self) -> int:
        return len(self.flags)

    @property
    def updated_at(self) -> datetime:
        return self.item.resolved_at or self.item.created_at


def _once(values: Iterable[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


@dataclass(frozen=True)
class DisputeFilters:
    """What the arena's disputes are narrowed to: a product, a story, a state (``DISPUTE_STATES``,
    "" for every state)."""

    product: Product | None = None
    story: Story | None = None
    state: str = ""


def dispute_filters_read(
    *,
    arena: Arena,
    products: Sequence[Product],
    product: str = "",
    story: int | None = None,
    state: str = "",
) -> tuple[DisputeFilters, list[str]]:
    """The filters asked for (``web.params.DisputesAsked``) read against the arena: its
    ``products`` (the pages' list) and its stories (one query when a story is asked for), with a
    message for each that names nothing of it (left out of the filters)."""
    problems = []
    found = next((p for p in products if p.slug == product), None) if product else None
    if product and found is None:
        problems.append(f"No product {product!r} in this arena.")
    shown = Story.objects.filter(arena=arena, pk=story).first() if story else None
    if story and shown is None:
        problems.append(f"No story {story} in this arena.")
    return DisputeFilters(found, shown, state if state in DISPUTE_STATES else ""), problems


def _items() -> QuerySet[ReviewItem]:
    """Review items, the latest news first (a decision, else the opening), with what they show."""
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
            .values_list(*_PUBLIC_FLAG_FIELDS)
        )
        for item_id, reason, verdict, quality, affiliated in rows:
            proposal = Flag(proposed_verdict=verdict, proposed_quality=quality).proposal_label
            shown = FlagShown(reason, proposal, affiliated)
            disputes[item_id].flags.append(shown)
    return list(disputes.values())


def cell_dispute_list(*, cell_id: int) -> list[Dispute]:
    """Every dispute on one cell, the latest news first: two queries (one with none)."""
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


@dataclass
class DisputePage:
    """One page of an arena's disputes, as filtered."""

    page: Page[ReviewItem]
    disputes: list[Dispute]
    filters: DisputeFilters


def arena_dispute_page(
    *,
    arena: Arena,
    filters: DisputeFilters,
    number: int | str = 1,
    per_page: int = DISPUTES_PER_PAGE,
) -> DisputePage:
    """A page of the arena's disputes (``number``: as asked, any value; a page out of range is the
    last one), the latest news first: three queries (the count, the page, its flags)."""
    page = Paginator(_filtered(arena, filters), per_page).get_page(number)
    return DisputePage(page, _with_flags(list(page.object_list)), filters)


def arena_dispute_list(
    *, arena: Arena, filters: DisputeFilters, limit: int = DISPUTES_PER_PAGE
) -> list[Dispute]:
    """The arena's newest disputes (the feed's): two queries."""
    return _with_flags(list(_filtered(arena, filters)[:limit]))


def arena_open_dispute_counts(*, arena: Arena) -> dict[int, int]:
    """How many disputes are open on each product of the arena, by product id (products without
    one left out): one aggregate query."""
    counts = (
        ReviewItem.objects.filter(status=Status.PENDING, cell__story__arena=arena)
        .order_by()
        .values_list("cell__product_id")
        .annotate(n=Count("id"))
    )
    return dict(counts)
