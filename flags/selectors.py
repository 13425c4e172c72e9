"""The moderators' reads: proposals, what upholding would change, reporters, the queue's health."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, DurationField, ExpressionWrapper, F, Min, Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.timesince import timesince

from arena.models import Arena, ProductScore
from arena.scoring.ranking import UpholdEffect, uphold_effect
from arena.scoring.results import ProductResult, product_results
from arena.scoring.tally import Tally
from arena.selectors.inputs import arena_scoring_inputs, cell_corrections
from flags.models import Flag, Notice, ReviewItem, Status
from stories.models import CellChange
from stories.values import CellValue

DECISION_WINDOW = timedelta(days=30)


def review_item_proposal(
    item: ReviewItem, seen_flags: frozenset[int] | None = None
) -> CellValue | None:
    """The newest flag's proposal, among ``seen_flags`` when given (what the moderator read)."""
    cell = CellValue.of(item.cell)
    flags = [f for f in item.flags.all() if seen_flags is None or f.pk in seen_flags]
    proposals = [p for f in flags if (p := f.proposal(cell))]  # the flags' order: the newest last
    return proposals[-1] if proposals else None


def _number(value: int | None) -> str:
    return "—" if value is None else str(value)


@dataclass(frozen=True)
class Impact:
    product: str
    effect: UpholdEffect

    @property
    def size(self) -> tuple[int, int, int]:  # places in the ranking, then PA, then integrity
        e = self.effect
        return (
            abs(e.rank_after - e.rank_before),
            abs((e.after.coverage or 0) - (e.before.coverage or 0)),
            abs((e.after.integrity or 0) - (e.before.integrity or 0)),
        )

    def __str__(self) -> str:
        e = self.effect
        return (
            f"{self.product} PA {_number(e.before.coverage)} → {_number(e.after.coverage)}, "
            f"rank {e.rank_before} → {e.rank_after}, "
            f"integrity {_number(e.before.integrity)} → {_number(e.after.integrity)}"
        )


def _standings(arena_ids: Collection[int]) -> dict[int, list[ProductResult]]:
    """Each arena's stored tallies if fresh and whole, else computed: as a full recompute gives."""
    # scores stored before the sums were kept (null) are not enough either
    incomplete = Arena.objects.filter(scores__weighted_quality__isnull=True)
    stale = Arena.objects.filter(Q(pk__in=Arena.objects.stale()) | Q(pk__in=incomplete))
    fresh = set(arena_ids) - set(stale.filter(pk__in=arena_ids).values_list("pk", flat=True))
    rows = (
        ProductScore.objects.filter(arena_id__in=fresh)
        .order_by("arena_id", "product__position")
        .values_list("arena_id", "product_id", "product__name", *Tally._fields)
    )
    standings: dict[int, list[ProductResult]] = {}
    for arena_id, product, name, *tally in rows if fresh else ():
        standing = ProductResult.of_tally(product, name, Tally(*tally))
        standings.setdefault(arena_id, []).append(standing)
    for arena_id in sorted(set(arena_ids) - standings.keys()):
        inputs = arena_scoring_inputs(arena_id=arena_id)
        standings[arena_id] = product_results(inputs.products, inputs.stories, inputs.cells)
    return standings


def review_item_impacts(items: Iterable[ReviewItem]) -> dict[int, Impact]:
    """The impact of upholding each pending item, by item id (none for a retired product), from
    each product's tally with its part of the cell swapped, in a constant number of queries."""
    pending = [item for item in items if item.status == Status.PENDING]
    if not pending:
        return {}
    standings = _standings({item.cell.story.arena_id for item in pending})
    nets = cell_corrections(cell_ids={item.cell_id for item in pending})
    impacts = {}
    for item in pending:
        cell, shown = item.cell, standings[item.cell.story.arena_id]
        names = {s.product: s.name for s in shown}
        if cell.product_id not in names:
            continue
        effect = uphold_effect(
            shown,
            cell.product_id,
            weight=cell.story.weight,
            old=CellValue.of(cell),
            new=review_item_proposal(item) or CellValue.of(cell),
            corrections=nets.get(item.cell_id),
            counted=cell.story.retired_at is None and cell.product.retired_at is None,
        )
        impacts[item.pk] = Impact(names[cell.product_id], effect)
    return impacts


def pending_by_impact(items: QuerySet[ReviewItem]) -> tuple[list[int], dict[int, Impact]]:
    """Every pending item's id (not a page's), largest impact first, then oldest; the impacts."""
    rows = list(
        items.filter(status=Status.PENDING)
        .select_related("cell__story", "cell__product")
        .prefetch_related("flags")
        .order_by("created_at", "pk")
    )
    impacts = review_item_impacts(rows)
    none = (-1, -1, -1)  # below any impact, even one that moves nothing
    ranked = sorted(  # stable, reversed too: equal impacts stay oldest first
        rows, key=lambda row: impacts[row.pk].size if row.pk in impacts else none, reverse=True
    )
    return [row.pk for row in ranked], impacts


def flag_reporter_records(flags: Sequence[Flag]) -> None:
    """Set ``reporter_record``: the reporter's decided flags (by e-mail, else client hash)."""
    emails = {f.email.lower() for f in flags if f.email}
    hashes = {f.client_hash for f in flags if not f.email}
    rows = (
        Flag.objects.annotate(email_lower=Lower("email"))
        .filter(
            Q(email_lower__in=emails) | Q(client_hash__in=hashes),
            item__status__in=[Status.UPHELD, Status.REJECTED],
        )
        .exclude(pk__in=[f.pk for f in flags])
        .values_list("email_lower", "client_hash", "item__status")
    )
    # an address and a client hash never look alike: one counter holds both
    counts = Counter((who, status) for email, client, status in rows for who in (email, client))
    for flag in flags:
        by, who = ("email", flag.email.lower()) if flag.email else ("client", flag.client_hash)
        upheld, rejected = (counts[who, s] for s in (Status.UPHELD, Status.REJECTED))
        flag.reporter_record = (  # type: ignore[attr-defined]
            f"earlier flags from this {by}: {upheld} upheld, {rejected} rejected"
            if upheld or rejected
            else f"no earlier decided flags from this {by}"
        )


def duration_text(delta: timedelta) -> str:
    """To its largest unit: "3 days", "under a minute"."""
    now = timezone.now()
    text = timesince(now - delta, now, depth=1)
    return "under a minute" if text.startswith("0\xa0minutes") else text.replace("\xa0", " ")


@dataclass(frozen=True)
class QueueHealth:
    """How many items wait, since when, and the median time to a decision over DECISION_WINDOW."""

    pending: int
    oldest: datetime | None
    oldest_age: str
    decided: int
    median_text: str
    window_days: int = DECISION_WINDOW.days


def queue_health() -> QueueHealth:
    pending, now = Q(status=Status.PENDING), timezone.now()
    figures = ReviewItem.objects.order_by().aggregate(
        pending=Count("pk", filter=pending), oldest=Min("created_at", filter=pending)
    )
    took = ExpressionWrapper(F("resolved_at") - F("created_at"), output_field=DurationField())
    decided = ReviewItem.objects.filter(resolved_at__gte=now - DECISION_WINDOW)
    times = list(decided.annotate(took=took).values_list("took", flat=True))
    oldest = figures["oldest"]
    return QueueHealth(
        figures["pending"],
        oldest,
        "" if oldest is None else duration_text(now - oldest),
        len(times),
        duration_text(statistics.median(times)) if times else "no decisions yet",
    )


def notice_counts() -> tuple[dict[str, int], int]:
    """Mail by state (each named), and how many pending ones failed an attempt (/metrics)."""
    retrying = Q(status=Notice.State.PENDING, attempts__gt=0)
    counts = Notice.objects.aggregate(
        retrying=Count("pk", filter=retrying),
        **{state: Count("pk", filter=Q(status=state)) for state in Notice.State.values},
    )
    return counts, counts.pop("retrying")


def flag_value_when_filed(flag: Flag) -> CellValue:
    """What the first change of the cell after the flag replaced, else the cell's value now."""
    later = (
        CellChange.objects.filter(cell_id=flag.cell_id, changed_at__gt=flag.created_at)
        .order_by("changed_at", "pk")
        .first()
    )
    return CellValue.of(flag.cell) if later is None else later.old_value
