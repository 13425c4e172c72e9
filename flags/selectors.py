"""Reads for the flags app: what flags propose, what upholding would change (who may moderate is
``core.moderators``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, DurationField, ExpressionWrapper, F, Min, Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.timesince import timesince

from arena import scoring
from arena.models import Arena, ProductScore
from arena.selectors.inputs import arena_scoring_inputs, cell_corrections
from flags.inputs import FlagInput
from flags.models import Flag, Notice, ReviewItem, Status
from stories.models import Cell, CellChange
from stories.values import CellValue


def review_item_proposal(
    item: ReviewItem, seen_flags: frozenset[int] | None = None
) -> CellValue | None:
    """The newest flag's proposal, among ``seen_flags`` when given (a decision applies only what
    the moderator read)."""
    proposing = [
        flag
        for flag in item.flags.all()
        if FlagInput.of(flag).proposes and (seen_flags is None or flag.pk in seen_flags)
    ]
    if not proposing:
        return None
    newest = max(proposing, key=lambda flag: (flag.created_at, flag.pk))
    return FlagInput.of(newest).proposal(CellValue.of(item.cell))


def _number(value: int | None) -> str:
    return "—" if value is None else str(value)


@dataclass(frozen=True)
class Impact:
    product: str
    pa_before: int | None
    pa_after: int | None
    rank_before: int
    rank_after: int
    integrity_before: int | None
    integrity_after: int | None

    @property
    def size(self) -> tuple[int, int, int]:
        """To sort by: places in the ranking, then PA Score, then integrity points."""
        return (
            abs(self.rank_after - self.rank_before),
            abs((self.pa_after or 0) - (self.pa_before or 0)),
            abs((self.integrity_after or 0) - (self.integrity_before or 0)),
        )

    def __str__(self) -> str:
        return (
            f"{self.product} PA {_number(self.pa_before)} → {_number(self.pa_after)}, "
            f"rank {self.rank_before} → {self.rank_after}, "
            f"integrity {_number(self.integrity_before)} → {_number(self.integrity_after)}"
        )


def impact_of_upholding(
    standings: Sequence[scoring.Standing],
    cell: Cell,
    correction: CellValue,
    *,
    corrections: scoring.Corrections | None,
) -> Impact | None:
    """What upholding would do to ``cell``'s product, from its arena's standings; ``corrections``:
    the cell's upheld corrections before this one. No queries; None for a retired product."""
    product = cell.product_id
    if not any(s.product == product for s in standings):
        return None
    effect = scoring.uphold_effect(
        standings,
        product,
        weight=cell.story.weight,
        old=CellValue.of(cell),
        new=correction,
        was_upheld=corrections is not None,
        corrections=corrections,
        counted=cell.story.retired_at is None and cell.product.retired_at is None,
    )
    return Impact(
        product=next(s.name for s in standings if s.product == product),
        pa_before=effect.before.coverage,
        pa_after=effect.after.coverage,
        rank_before=effect.rank_before,
        rank_after=effect.rank_after,
        integrity_before=effect.before.integrity,
        integrity_after=effect.after.integrity,
    )


def _standings_stored(arena_ids: Collection[int]) -> dict[int, list[scoring.Standing]]:
    """The stored tallies of the arenas whose stored scores are fresh and carry their sums."""
    fresh = set(arena_ids) - set(
        Arena.objects.stale().filter(pk__in=arena_ids).values_list("pk", flat=True)
    )
    rows = (
        ProductScore.objects.filter(arena_id__in=fresh)
        .order_by("arena_id", "product__position")
        .values_list(
            "arena_id",
            "product_id",
            "product__name",
            "weighted_quality",
            "weighted_max",
            "verified",
            "with_evidence",
            "disputed",
            "contradicted",
            "upheld",
            "upheld_in_favour",
            "favour_credit",
            "upheld_unevidenced",
        )
    )
    standings: dict[int, list[scoring.Standing]] = {}
    incomplete = set()
    for arena_id, product, name, wq, wm, *counts in rows if fresh else ():
        if wq is None or wm is None:  # stored before the sums were kept
            incomplete.add(arena_id)
            continue
        tally = scoring.Tally(wq, wm, *counts)
        standings.setdefault(arena_id, []).append(scoring.Standing(product, name, tally))
    return {a: rows for a, rows in standings.items() if a not in incomplete}


def _standings_computed(arena_id: int) -> list[scoring.Standing]:
    inputs = arena_scoring_inputs(arena_id=arena_id)
    return [
        scoring.Standing(r.product, r.name, tally)
        for r in scoring.product_results(inputs.products, inputs.stories, inputs.cells)
        if (tally := r.tally) is not None
    ]


def review_item_impacts(items: Iterable[ReviewItem]) -> dict[int, Impact]:
    """The impact of upholding each pending item, by item id, from each product's stored tally (its
    part of the cell swapped), in a constant number of queries. An arena whose stored scores are
    stale or incomplete is computed from its cells instead: the impact is always the one a full
    recomputation would give."""
    pending = [item for item in items if item.status == Status.PENDING]
    if not pending:
        return {}
    arena_ids = {item.cell.story.arena_id for item in pending}
    standings = _standings_stored(arena_ids)
    for arena_id in sorted(arena_ids - standings.keys()):
        standings[arena_id] = _standings_computed(arena_id)
    nets = cell_corrections(cell_ids={item.cell_id for item in pending})
    impacts = {}
    for item in pending:
        impact = impact_of_upholding(
            standings[item.cell.story.arena_id],
            item.cell,
            review_item_proposal(item) or CellValue.of(item.cell),
            corrections=nets.get(item.cell_id),
        )
        if impact is not None:
            impacts[item.pk] = impact
    return impacts


def review_item_impact(item: ReviewItem) -> Impact | None:
    return review_item_impacts([item]).get(item.pk)


def pending_by_impact(items: QuerySet[ReviewItem]) -> tuple[list[int], dict[int, Impact]]:
    """The pending items' ids, largest impact first (ties oldest first), and the impacts: over
    every pending item, not a page, in a constant number of queries."""
    rows = list(
        items.filter(status=Status.PENDING)
        .select_related("cell__story", "cell__product")
        .prefetch_related("flags")
        .order_by("created_at", "pk")
    )
    impacts = review_item_impacts(rows)
    none = (-1, -1, -1)  # below any impact, even one that moves nothing
    ranked = sorted(  # stable, reversed too: equal impacts stay oldest first
        rows,
        key=lambda row: impacts[row.pk].size if row.pk in impacts else none,
        reverse=True,
    )
    return [row.pk for row in ranked], impacts


@dataclass(frozen=True)
class ReporterRecord:
    """A reporter's decided past flags, matched by ``"email"`` or else ``"client"`` (hash)."""

    by: str
    upheld: int
    rejected: int

    def __str__(self) -> str:
        who = "this email" if self.by == "email" else "this client"
        if not (self.upheld or self.rejected):
            return f"no earlier decided flags from {who}"
        return f"earlier flags from {who}: {self.upheld} upheld, {self.rejected} rejected"


def flag_reporter_records(flags: Sequence[Flag]) -> dict[int, ReporterRecord]:
    """Each flag's reporter record, by flag id, in one query."""
    if not flags:
        return {}
    emails = {f.email.lower() for f in flags if f.email}
    hashes = {f.client_hash for f in flags if not f.email}
    decided = [Status.UPHELD, Status.REJECTED]
    rows = (
        Flag.objects.alias(email_lower=Lower("email"))
        .filter(Q(email_lower__in=emails) | Q(client_hash__in=hashes), item__status__in=decided)
        .exclude(pk__in=[f.pk for f in flags])
        .values("email", "client_hash", "item__status")
        .order_by()
        .annotate(n=Count("pk"))
    )
    by_email: dict[tuple[str, str], int] = {}
    by_client: dict[tuple[str, str], int] = {}
    for row in rows:
        status, n = row["item__status"], row["n"]
        if row["email"]:
            email_key = (row["email"].lower(), status)
            by_email[email_key] = by_email.get(email_key, 0) + n
        client_key = (row["client_hash"], status)
        by_client[client_key] = by_client.get(client_key, 0) + n
    records = {}
    for flag in flags:
        if flag.email:
            counts, who, by = by_email, flag.email.lower(), "email"
        else:
            counts, who, by = by_client, flag.client_hash, "client"
        records[flag.pk] = ReporterRecord(
            by=by,
            upheld=counts.get((who, Status.UPHELD.value), 0),
            rejected=counts.get((who, Status.REJECTED.value), 0),
        )
    return records


# ---------------------------------------------------------------- the queue's health

DECISION_WINDOW = timedelta(days=30)


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
    decided: int
    median_decision: timedelta | None

    @property
    def oldest_age(self) -> str:
        return "" if self.oldest is None else duration_text(timezone.now() - self.oldest)

    @property
    def median_text(self) -> str:
        return (
            "no decisions yet"
            if self.median_decision is None
            else duration_text(self.median_decision)
        )

    @property
    def window_days(self) -> int:
        return DECISION_WINDOW.days


def _median_decision(since: datetime, decided: int) -> timedelta | None:
    if not decided:
        return None
    took = ExpressionWrapper(F("resolved_at") - F("created_at"), output_field=DurationField())
    middle = list(
        ReviewItem.objects.filter(resolved_at__gte=since)
        .annotate(took=took)
        .order_by("took", "pk")
        .values_list("took", flat=True)[(decided - 1) // 2 : decided // 2 + 1]
    )
    # (a decision made between the two queries may shift the middle by one row; none is lost)
    return sum(middle, timedelta()) / len(middle) if middle else None


def queue_health() -> QueueHealth:
    since = timezone.now() - DECISION_WINDOW
    pending = Q(status=Status.PENDING)
    figures = ReviewItem.objects.order_by().aggregate(
        pending=Count("pk", filter=pending),
        oldest=Min("created_at", filter=pending),
        decided=Count("pk", filter=Q(resolved_at__gte=since)),
    )
    return QueueHealth(
        pending=figures["pending"],
        oldest=figures["oldest"],
        decided=figures["decided"],
        median_decision=_median_decision(since, figures["decided"]),
    )


def pending_reviews() -> tuple[int, datetime | None]:
    """For /metrics."""
    figures = (
        ReviewItem.objects.filter(status=Status.PENDING)
        .order_by()
        .aggregate(pending=Count("pk"), oldest=Min("created_at"))
    )
    return figures["pending"], figures["oldest"]


def notice_counts() -> tuple[dict[str, int], int]:
    """Mail by state (each named), and how many pending ones failed an attempt (/metrics)."""
    counts = dict.fromkeys(Notice.State.values, 0)
    rows = (
        Notice.objects.order_by()
        .values_list("status")
        .annotate(n=Count("pk"), tried=Count("pk", filter=Q(attempts__gt=0)))
    )
    retrying = 0
    for status, n, tried in rows:
        counts[status] = n
        retrying += tried if status == Notice.State.PENDING else 0
    return counts, retrying


def flag_value_when_filed(flag: Flag) -> CellValue:
    """What the first change of the cell after the flag replaced, else the cell's value now."""
    later = (
        CellChange.objects.filter(cell_id=flag.cell_id, changed_at__gt=flag.created_at)
        .order_by("changed_at", "pk")
        .first()
    )
    return CellValue.of(flag.cell) if later is None else later.old_value
