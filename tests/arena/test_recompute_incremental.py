"""A change to one product's cells makes the recompute redo that product and its close calls only;
what it stores is exactly what a recompute of every product stores."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.models import Arena, PersonaResult, ProductScore, ProductSide
from arena.recompute import arena_mark_stale, arena_recompute_scores
from stories.models import Cell, CellChange
from stories.services import cell_correct
from stories.values import CellValue, Quote

from .scoring.test_scoring import cell_values
from .test_close_calls_stored import stored_close_calls

pytestmark = pytest.mark.django_db


def stored(arena: Arena) -> dict:
    """Everything the recompute writes, but the time each score was computed at."""

    def rows(queryset, *order: str) -> list[dict]:
        skip = {"id", "computed_at"}
        return [
            {k: v for k, v in row.items() if k not in skip}
            for row in queryset.order_by(*order).values()
        ]

    return {
        "scores": rows(ProductScore.objects.filter(arena=arena), "rank"),
        "personas": rows(PersonaResult.objects.filter(arena=arena), "position"),
        "calls": stored_close_calls(arena),
        "sides": rows(ProductSide.objects.filter(product__arena=arena), "product"),
    }


def recompute_all(arena: Arena) -> dict:
    arena_mark_stale(arena_id=arena.pk)  # (no product: every product's side is stale)
    assert arena_recompute_scores(arena_id=arena.pk)
    return stored(arena)


kinds = st.sampled_from([CellChange.Kind.ADMIN, CellChange.Kind.FLAG])


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(st.tuples(st.integers(0, 10**6), cell_values(), kinds), min_size=1, max_size=4)
)
def test_a_recompute_of_the_changed_products_stores_what_a_full_one_does(seeded_arena, edits):
    cells = list(Cell.objects.filter(story__arena=seeded_arena).order_by("pk"))
    for pick, value, kind in edits:
        cell_correct(cell=cells[pick % len(cells)], value=value, kind=kind, by=None)
    changed = set(ProductSide.objects.filter(stale=True).values_list("product_id", flat=True))
    assert changed <= {cells[pick % len(cells)].product_id for pick, *_ in edits}
    assert arena_recompute_scores(arena_id=seeded_arena.pk)
    assert not ProductSide.objects.filter(stale=True).exists()
    assert stored(seeded_arena) == recompute_all(seeded_arena)


def test_one_cell_changed_redoes_only_its_product(seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, proof="claimed").first()
    sides = dict(ProductSide.objects.values_list("product_id", "pk"))
    before = stored(seeded_arena)
    cell_correct(cell=cell, value=CellValue("full", "probed", 9), kind=CellChange.Kind.ADMIN)
    stale = ProductSide.objects.filter(stale=True).values_list("product_id", flat=True)
    assert set(stale) == {cell.product_id}
    arena_recompute_scores(arena_id=seeded_arena.pk)
    after = dict(ProductSide.objects.values_list("product_id", "pk"))
    assert {p for p in after if after[p] != sides[p]} == {cell.product_id}  # the rest: kept
    assert stored(seeded_arena) != before
    assert stored(seeded_arena) == recompute_all(seeded_arena)


def test_a_structure_change_redoes_every_product(seeded_arena):
    arena_mark_stale(arena_id=seeded_arena.pk)
    assert ProductSide.objects.filter(product__arena=seeded_arena, stale=False).count() == 0
    arena_recompute_scores(arena_id=seeded_arena.pk)
    products = seeded_arena.products.count()
    assert ProductSide.objects.filter(product__arena=seeded_arena, stale=False).count() == products


def test_a_quote_added_to_an_unpublished_cell_recounts_its_products_published_evidence(
    seeded_arena,
):
    cell = Cell.objects.filter(
        story__arena=seeded_arena, detail_published=False, verdict="full"
    ).first()
    assert cell is not None, "the seed arena has a judged cell whose backing is not published"
    row = ProductScore.objects.get(product=cell.product)
    quote = Quote(source="docs", quote="It resumes after approval.", url="https://example.com/")
    cell_correct(cell=cell, value=None, quotes=[quote], kind=CellChange.Kind.ADMIN)
    assert ProductSide.objects.get(product=cell.product).stale  # its judgement did not change
    arena_recompute_scores(arena_id=seeded_arena.pk)
    after = ProductScore.objects.get(product=cell.product)
    assert after.published_evidence == row.published_evidence + 1
    assert stored(seeded_arena) == recompute_all(seeded_arena)
