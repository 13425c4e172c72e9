"""The review queue's "impact of upholding" comes from the stored tallies and the one cell's change;
it must be exactly what recomputing the whole arena before and after would say (the oracle)."""

from __future__ import annotations

import dataclasses

import pytest
from django.db.models import F

from arena.models import Arena, ProductScore
from arena.recompute import arena_recompute_scores
from arena.selectors.inputs import arena_scoring_inputs, cell_corrections
from flags.models import Reason, ReviewItem
from flags.selectors import Impact, review_item_impacts, review_item_proposal
from stories.models import Cell, CellChange
from stories.values import CellValue, Verdict
from tests.arena.scoring import oracle
from tests.factories import CellChangeFactory, FlagFactory, ReviewItemFactory

PROPOSALS = [
    {"proposed_verdict": Verdict.FULL, "proposed_quality": 10},
    {"proposed_verdict": Verdict.NONE, "proposed_quality": 0},
    {"proposed_verdict": Verdict.NA, "proposed_quality": None},
    {"proposed_verdict": "", "proposed_quality": 2},
    {"reason": Reason.OTHER, "proposed_verdict": "", "proposed_quality": None},  # values stay
]


def queue_items(arena: Arena, every: int = 23) -> list[ReviewItem]:
    """A pending item with one flag on every ``every``-th cell of the arena, the proposals in
    turn."""
    cells = Cell.objects.filter(story__arena=arena).order_by("pk")[::every]
    for i, cell in enumerate(cells):
        FlagFactory(item=ReviewItemFactory(cell=cell), **PROPOSALS[i % len(PROPOSALS)])
    return loaded(arena)


def loaded(arena: Arena) -> list[ReviewItem]:
    """The items as the admin loads them."""
    return list(
        ReviewItem.objects.filter(cell__story__arena=arena)
        .select_related("cell__story__arena", "cell__product")
        .prefetch_related("flags")
        .order_by("pk")
    )


def expected(arena: Arena, items: list[ReviewItem]) -> dict[int, tuple]:
    inputs = arena_scoring_inputs(arena_id=arena.pk)
    nets = {
        (cell.story_id, cell.product_id): cell_corrections(cell_ids=[cell.pk]).get(cell.pk)
        for cell in (item.cell for item in items)
    }
    return {
        item.pk: dataclasses.astuple(
            oracle.impact_of_upholding(
                inputs.products,
                inputs.stories,
                inputs.cells,
                item.cell.story_id,
                item.cell.product_id,
                review_item_proposal(item) or CellValue.of(item.cell),
                {key: net for key, net in nets.items() if net is not None},
            )
        )
        for item in items
    }


def figures(impact: Impact) -> tuple:
    e = impact.effect
    before, after = e.before, e.after
    return (
        impact.product,
        *(before.coverage, after.coverage, e.rank_before, e.rank_after),
        *(before.integrity, after.integrity),
    )


def got(items: list[ReviewItem]) -> dict[int, tuple]:
    return {pk: figures(impact) for pk, impact in review_item_impacts(items).items()}


@pytest.mark.django_db
def test_the_queue_impacts_equal_a_full_recomputation(seeded_arena):
    # a cell whose flag was upheld before: upholding again does not count twice against integrity
    upheld_before = Cell.objects.filter(story__arena=seeded_arena).order_by("pk")[23]
    CellChangeFactory(cell=upheld_before, kind=CellChange.Kind.FLAG)
    arena_recompute_scores(arena_id=seeded_arena.pk)
    items = queue_items(seeded_arena)
    assert len(items) == 14
    impacts = got(items)
    assert impacts == expected(seeded_arena, items)
    moved = [i for i in impacts.values() if i[1] != i[2] or i[3] != i[4]]
    assert moved, "some proposals move a PA Score or a rank"


@pytest.mark.django_db
def test_the_item_page_impact_is_the_queue_rows(seeded_arena):
    items = queue_items(seeded_arena, every=97)
    for item in items:
        (impact,) = review_item_impacts([item]).values()
        assert figures(impact) == expected(seeded_arena, items)[item.pk]


@pytest.mark.django_db
def test_stale_scores_are_not_what_upholding_starts_from(seeded_arena, django_assert_num_queries):
    """A change waits for its recomputation: the preview is computed from the cells (once per
    arena), so it still equals the full recomputation, not the out-of-date stored scores."""
    items = queue_items(seeded_arena)
    product = items[0].cell.product
    Cell.objects.filter(product=product).update(verdict=Verdict.NONE, proof=None, quality=0)
    Arena.objects.filter(pk=seeded_arena.pk).update(change_seq=F("change_seq") + 1)
    items = loaded(seeded_arena)
    want = expected(seeded_arena, items)
    assert want[items[0].pk][1] == 0 != ProductScore.objects.get(product=product).pa_score
    # fresh? (1) · stored rows: none fresh · the arena's inputs (4) · upheld cells (1)
    with django_assert_num_queries(6):
        impacts = got(items)
    assert impacts == want


@pytest.mark.django_db
def test_scores_stored_before_the_sums_were_kept_are_computed_from_the_cells(seeded_arena):
    items = queue_items(seeded_arena)
    want = expected(seeded_arena, items)
    ProductScore.objects.update(weighted_quality=None, weighted_max=None)
    assert got(loaded(seeded_arena)) == want


@pytest.mark.django_db
def test_an_item_of_a_retired_product_shows_no_impact(seeded_arena):
    items = queue_items(seeded_arena, every=97)
    product = items[0].cell.product
    type(product).all_objects.filter(pk=product.pk).update(retired_at="2026-01-01T00:00Z")
    arena_recompute_scores(arena_id=seeded_arena.pk)
    impacts = review_item_impacts(loaded(seeded_arena))
    assert items[0].pk not in impacts
    assert all(i.product != product.name for i in impacts.values()) and impacts
