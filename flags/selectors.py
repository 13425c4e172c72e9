"""Reads for the flags app: the review queue and the score impact of upholding an item."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db.models import Count, Prefetch

from arena import scoring
from arena.recompute import ArenaInputs, arena_scoring_inputs
from flags.models import Flag, ReviewItem, Status
from flags.services import proposed_correction
from stories.values import CellValue


def review_queue():
    """Pending items oldest first, with cell, story, product and flags in place."""
    return (
        ReviewItem.objects.filter(status=Status.PENDING)
        .select_related("cell__story__arena", "cell__product")
        .prefetch_related(Prefetch("flags", queryset=Flag.objects.order_by("created_at")))
        .annotate(reporters=Count("flags__client_hash", distinct=True))
        .order_by("created_at", "pk")
    )


@dataclass(frozen=True)
class Impact:
    product: str
    pa_before: int | None
    pa_after: int | None
    rank_before: int
    rank_after: int
    integrity_before: int | None
    integrity_after: int | None

    def __str__(self) -> str:
        def n(v):
            return "—" if v is None else str(v)

        return (
            f"{self.product} PA {n(self.pa_before)} → {n(self.pa_after)}, rank {self.rank_before} → "
            f"{self.rank_after}, integrity {n(self.integrity_before)} → {n(self.integrity_after)}"
        )


def impact_of(inputs: ArenaInputs, cell_id_key: tuple[int, int], correction: CellValue) -> Impact:
    """What upholding would do to the cell's product: PA Score, rank and integrity (an upheld flag
    counts against integrity even when the values stay)."""
    story_id, product_id = cell_id_key
    names = dict(inputs.products)

    def board(cells):
        results = [
            scoring.product_result(pid, name, inputs.stories, cells)
            for pid, name in inputs.products
        ]
        return {row.result.product: row for row in scoring.leaderboard(results)}

    before = board(inputs.cells)
    after_cells = [
        replace(
            c,
            verdict=correction.verdict,
            proof=correction.proof,
            quality=correction.quality,
            upheld=True,
        )
        if (c.story_id, c.product) == (story_id, product_id)
        else c
        for c in inputs.cells
    ]
    after = board(after_cells)
    b, a = before[product_id], after[product_id]
    return Impact(
        product=names[product_id],
        pa_before=b.result.pa_score,
        pa_after=a.result.pa_score,
        rank_before=b.rank,
        rank_after=a.rank,
        integrity_before=b.result.integrity,
        integrity_after=a.result.integrity,
    )


def review_impact(
    item: ReviewItem, correction: CellValue | None = None, cache: dict | None = None
) -> Impact:
    """Impact of upholding ``item`` with ``correction`` (default: the flags' proposal). ``cache``
    shares one arena's inputs across a page of items (three queries per arena)."""
    cell = item.cell
    arena_id = cell.story.arena_id
    cache = cache if cache is not None else {}
    if arena_id not in cache:
        cache[arena_id] = arena_scoring_inputs(arena_id=arena_id)
    correction = correction or proposed_correction(item) or CellValue.of(cell)
    return impact_of(cache[arena_id], (cell.story_id, cell.product_id), correction)
