"""The scores as they were computed before stored tallies: a full recomputation of the arena, kept
only here, as the oracle the fast paths are checked against (``product_results``, the
review queue's ``uphold_effect``). Deliberately naive: every cell per product, every category per
cell, the whole arena twice per preview."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from arena.scoring.ranking import RankedResult, leaderboard
from arena.scoring.results import ProductResult
from arena.scoring.tally import (
    CellIn,
    Corrections,
    ProductKey,
    StoryIn,
    Tally,
    has_evidence,
    is_verified,
    round_half_up,
)
from stories.values import QUALITY_MAX, CellValue, Direction, Proof, Verdict, correction_direction


def coverage(cells: Sequence[CellIn], weights: dict[int, int]) -> int | None:
    num = den = 0
    for c in cells:
        if c.verdict == Verdict.NA:
            continue
        w = weights[c.story_id]
        num += w * (c.quality or 0)
        den += QUALITY_MAX * w
    return None if den == 0 else round_half_up(100 * num / den)


def product_result(
    product: ProductKey, name: str, stories: Sequence[StoryIn], cells: Sequence[CellIn]
) -> ProductResult:
    weights = {s.id: s.weight for s in stories}
    by_story = {c.story_id: c for c in cells if c.product == product}
    mine = [by_story[s.id] for s in stories if s.id in by_story]
    cat_of = {s.id: s.category for s in stories}
    per_of = {s.id: s.persona for s in stories}
    verified = sum(1 for c in mine if is_verified(c))
    evidenced = sum(1 for c in mine if has_evidence(c))
    contradicted = sum(1 for c in mine if has_evidence(c) and c.proof == Proof.CONTRADICTED)
    upheld = sum(1 for c in mine if c.correction == Direction.AGAINST)
    # integrity as docs/scoring.md words it: cells holding up (verified, or corrected in the
    # product's favour), minus contradicted ones not corrected in its favour, minus those against
    favour = [c for c in mine if has_evidence(c) and c.correction == Direction.FAVOUR]
    holding = sum(1 for c in mine if is_verified(c) or c in favour)
    still_contradicted = sum(
        1 for c in mine if has_evidence(c) and c.proof == Proof.CONTRADICTED and c not in favour
    )
    honest = holding - still_contradicted - upheld
    # corrected against the claim: counted even when the correction took its evidence away
    judged = sum(1 for c in mine if has_evidence(c) or c.correction == Direction.AGAINST)
    integrity = None if not judged else max(0, min(100, round_half_up(100 * honest / judged)))
    result = ProductResult(
        product=product,
        name=name,
        pa_score=coverage(mine, weights),
        category_scores={
            cat: coverage([c for c in mine if cat_of[c.story_id] == cat], weights)
            for cat in dict.fromkeys(s.category for s in stories)
        },
        persona_scores={
            p: coverage([c for c in mine if per_of[c.story_id] == p], weights)
            for p in dict.fromkeys(s.persona for s in stories)
        },
        tally=Tally(
            verified=verified,
            with_evidence=evidenced,
            disputed=sum(1 for c in mine if c.verdict == Verdict.DISPUTED),
            contradicted=contradicted,
            upheld=upheld,
            upheld_in_favour=sum(1 for c in mine if c.correction == Direction.FAVOUR),
            favour_credit=(holding - verified) + (contradicted - still_contradicted),
            upheld_unevidenced=judged - evidenced,
            # the evidence share as docs/scoring.md words it: applicable cells whose backing is
            # published, of the applicable cells
            published_evidence=sum(1 for c in mine if c.verdict != Verdict.NA and c.published),
            judged=sum(1 for c in mine if c.verdict != Verdict.NA),
        ),
    )
    # the tally's formula must give the integrity docs/scoring.md words
    assert result.integrity == integrity
    share = verified / evidenced if evidenced else 0
    grade = "A" if share >= 0.6 else "B" if share >= 0.4 else "C" if share >= 0.2 else "D"
    assert result.tally.confidence == grade
    return result


def board(
    products: Sequence[tuple[ProductKey, str]],
    stories: Sequence[StoryIn],
    cells: Sequence[CellIn],
) -> dict[ProductKey, RankedResult]:
    results = [product_result(pid, name, stories, cells) for pid, name in products]
    return {row.result.product: row for row in leaderboard(results)}


@dataclass(frozen=True)
class Impact:
    product: str
    pa_before: int | None
    pa_after: int | None
    rank_before: int
    rank_after: int
    integrity_before: int | None
    integrity_after: int | None


def impact_of_upholding(
    products: Sequence[tuple[ProductKey, str]],
    stories: Sequence[StoryIn],
    cells: Sequence[CellIn],
    story_id: int,
    product: ProductKey,
    correction: CellValue,
    corrections: Mapping[tuple[int, ProductKey], Corrections] | None = None,
) -> Impact:
    """The whole arena recomputed before and after the correction. ``corrections``: the net of the
    flags upheld on each cell before, by (story, product); after, the cell counts in the
    direction of the judgement before its earliest correction (the cell's own when it had none)
    against ``correction``."""
    before = board(products, stories, cells)
    cell = next(c for c in cells if (c.story_id, c.product) == (story_id, product))
    first = (corrections or {}).get((story_id, product))
    start = first.first if first is not None else CellValue(cell.verdict, cell.proof, cell.quality)
    direction = correction_direction(
        start.verdict, start.quality, correction.verdict, correction.quality
    )
    after = board(
        products,
        stories,
        [
            replace(
                c,
                verdict=correction.verdict,
                proof=correction.proof,
                quality=correction.quality,
                correction=direction,
            )
            if (c.story_id, c.product) == (story_id, product)
            else c
            for c in cells
        ],
    )
    b, a = before[product], after[product]
    return Impact(
        product=dict(products)[product],
        pa_before=b.result.pa_score,
        pa_after=a.result.pa_score,
        rank_before=b.rank,
        rank_after=a.rank,
        integrity_before=b.result.integrity,
        integrity_after=a.result.integrity,
    )
