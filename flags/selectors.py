"""Reads for the flags app: who may moderate, what a review item's flags propose, and what upholding
it would do to its product's scores."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from django.contrib.auth.models import AnonymousUser, User

from arena import scoring
from arena.selectors.inputs import ArenaInputs, arena_scoring_inputs
from flags.inputs import FlagInput
from flags.models import ReviewItem, Status
from stories.values import CellValue

MODERATORS_GROUP = "Moderators"


def user_can_moderate(user: User | AnonymousUser) -> bool:
    """Superusers and members of the Moderators group (active, signed in)."""
    if not user.is_authenticated or not user.is_active:
        return False
    return user.is_superuser or user.groups.filter(name=MODERATORS_GROUP).exists()


def review_item_proposal(
    item: ReviewItem, seen_flags: frozenset[int] | None = None
) -> CellValue | None:
    """The newest flag's proposal (among ``seen_flags`` when given: a decision applies only what
    the moderator read), completed from the cell; None when no flag proposes anything."""
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

    def __str__(self) -> str:
        return (
            f"{self.product} PA {_number(self.pa_before)} → {_number(self.pa_after)}, "
            f"rank {self.rank_before} → {self.rank_after}, "
            f"integrity {_number(self.integrity_before)} → {_number(self.integrity_after)}"
        )


def _board(
    inputs: ArenaInputs, cells: Sequence[scoring.CellIn]
) -> dict[scoring.ProductKey, scoring.RankedResult]:
    results = [
        scoring.product_result(pid, name, inputs.stories, cells) for pid, name in inputs.products
    ]
    return {row.result.product: row for row in scoring.leaderboard(results)}


def impact_of_upholding(
    inputs: ArenaInputs, story_id: int, product_id: int, correction: CellValue
) -> Impact:
    """What upholding would do to the cell's product: PA Score, rank and integrity (an upheld flag
    counts against integrity even when the values stay). Pure: no queries."""
    before = _board(inputs, inputs.cells)
    after = _board(
        inputs,
        [
            replace(
                cell,
                verdict=correction.verdict,
                proof=correction.proof,
                quality=correction.quality,
                upheld=True,
            )
            if (cell.story_id, cell.product) == (story_id, product_id)
            else cell
            for cell in inputs.cells
        ],
    )
    b, a = before[product_id], after[product_id]
    return Impact(
        product=dict(inputs.products)[product_id],
        pa_before=b.result.pa_score,
        pa_after=a.result.pa_score,
        rank_before=b.rank,
        rank_after=a.rank,
        integrity_before=b.result.integrity,
        integrity_after=a.result.integrity,
    )


def review_item_impact(item: ReviewItem, inputs: ArenaInputs | None = None) -> Impact:
    """Impact of upholding ``item`` with the flags' proposal (or the cell's values as they are).
    ``inputs``: its arena's scoring inputs when the caller has them already."""
    cell = item.cell
    if inputs is None:
        inputs = arena_scoring_inputs(arena_id=cell.story.arena_id)
    correction = review_item_proposal(item) or CellValue.of(cell)
    return impact_of_upholding(inputs, cell.story_id, cell.product_id, correction)


def review_item_impacts(items: Iterable[ReviewItem]) -> dict[int, Impact]:
    """The impact of upholding each pending item of a page, by item id: one arena's inputs (three
    queries) serve all its items."""
    inputs: dict[int, ArenaInputs] = {}
    impacts: dict[int, Impact] = {}
    for item in items:
        if item.status != Status.PENDING:
            continue
        arena_id = item.cell.story.arena_id
        if arena_id not in inputs:
            inputs[arena_id] = arena_scoring_inputs(arena_id=arena_id)
        impacts[item.pk] = review_item_impact(item, inputs[arena_id])
    return impacts
