"""The story matrix read from the row the recompute stores (``arena.selectors.stored_matrix``):
the same cells as the cells themselves give, used only while nothing has changed since, and
never one query more."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.models import StoredMatrix
from arena.recompute import arena_content_changed, arena_recompute_scores
from arena.selectors import MatrixFilters, arena_get, arena_matrix, arena_product_list
from stories.models import Cell, Evidence

pytestmark = pytest.mark.django_db


def _cells(arena):
    """Every cell the arena's whole matrix shows, as a page reads it."""
    products = arena_product_list(arena=arena)
    matrix = arena_matrix(arena=arena, filters=MatrixFilters(), products=products)
    return [
        (c.pk, c.story_id, c.product_id, c.verdict, c.proof, c.quality, c.evidence_as_of, c.backing)
        for row in matrix.rows
        for c in row.cells
    ]


def _read(slug, *, stored: bool):
    arena = arena_get(slug=slug)
    if not stored:
        arena.matrix_version = None  # (as if the row were of another version)
    with CaptureQueriesContext(connection) as queries:
        cells = _cells(arena)
    used = any("arena_storedmatrix" in q["sql"] for q in queries.captured_queries)
    return cells, used, len(queries)


def test_the_recompute_stores_the_cells_the_page_reads(seeded_arena):
    arena = arena_get(slug=seeded_arena.slug)
    assert arena.matrix_version == arena.content_version
    stored, used, n_stored = _read(seeded_arena.slug, stored=True)
    live, live_used, n_live = _read(seeded_arena.slug, stored=False)
    assert used and not live_used
    assert stored == live and len(stored) == 318
    assert n_stored == n_live  # (the stored row instead of the cells, not besides them)
    assert any(isinstance(cell[6], date) for cell in stored)


def test_a_change_since_the_recompute_is_read_from_the_cells(seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="full").order_by("pk").first()
    with transaction.atomic():
        Cell.objects.filter(pk=cell.pk).update(verdict="partial", quality=5)
        arena_content_changed(arena_id=seeded_arena.pk)
    cells, used, _ = _read(seeded_arena.slug, stored=True)
    assert not used
    assert next(c for c in cells if c[0] == cell.pk)[3:6] == ("partial", cell.proof, 5)
    # the next recompute stores it
    arena_recompute_scores(arena_id=seeded_arena.pk)
    cells, used, _ = _read(seeded_arena.slug, stored=True)
    assert used and next(c for c in cells if c[0] == cell.pk)[3] == "partial"
    row = StoredMatrix.objects.get(arena=seeded_arena)
    assert row.version == arena_get(slug=seeded_arena.slug).content_version


def test_the_arena_page_is_the_same_from_the_stored_row(client, seeded_arena):
    url = seeded_arena.get_absolute_url()
    stored = client.get(url).content
    arena_content_changed(arena_id=seeded_arena.pk)  # nothing changed, but the row is not current
    fresh = arena_get(slug=seeded_arena.slug)
    assert fresh.matrix_version != fresh.content_version
    live = client.get(url).content
    assert stored == live and b"story-matrix" in stored


def test_a_column_or_two_read_their_own_cells(seeded_arena):
    arena = arena_get(slug=seeded_arena.slug)
    products = arena_product_list(arena=arena)[:2]
    with CaptureQueriesContext(connection) as queries:
        matrix = arena_matrix(arena=arena, filters=MatrixFilters(), products=products)
    assert not any("arena_storedmatrix" in q["sql"] for q in queries.captured_queries)
    assert {c.product_id for row in matrix.rows for c in row.cells} == {p.pk for p in products}


_EDIT = st.sampled_from(["unpublish", "publish", "blank", "rationale", "no evidence", "no date"])


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(st.tuples(st.integers(0, 317), _EDIT), min_size=1, max_size=6))
def test_after_any_edits_and_a_recompute_the_stored_row_is_what_the_cells_give(seeded_arena, edits):
    """(What backs a cell, its evidence day: what the stored row keeps besides the judgement.)"""
    pks = list(
        Cell.objects.filter(story__arena=seeded_arena).order_by("pk").values_list("pk", flat=True)
    )
    for at, edit in edits:
        cells = Cell.objects.filter(pk=pks[at])
        if edit in ("unpublish", "publish"):
            cells.update(detail_published=edit == "publish")
        elif edit in ("blank", "rationale"):
            cells.update(rationale="  \n" if edit == "blank" else "Checked against the docs.")
        elif edit == "no evidence":
            Evidence.objects.filter(cell_id=pks[at]).delete()
        else:
            cells.update(evidence_as_of=None)
    arena_recompute_scores(arena_id=seeded_arena.pk)
    stored, used, _ = _read(seeded_arena.slug, stored=True)
    live, _, _ = _read(seeded_arena.slug, stored=False)
    assert used and stored == live


def test_one_arena_s_counts_come_from_the_stored_row_only_while_it_is_current(seeded_arena):
    counted = ("cell_count", "na_count", "evidence_oldest", "evidence_newest")
    stored = arena_get(slug=seeded_arena.slug)
    assert stored.matrix_version == stored.content_version
    assert (stored.cell_count, stored.na_count) == (318, 12)
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="none").order_by("pk").first()
    with transaction.atomic():
        Cell.objects.filter(pk=cell.pk).update(verdict="n/a", quality=None, proof=None)
        arena_content_changed(arena_id=seeded_arena.pk)
    live = arena_get(slug=seeded_arena.slug)
    assert live.matrix_version != live.content_version
    assert (live.cell_count, live.na_count) == (318, 13)  # (the cells, not the stored row)
    arena_recompute_scores(arena_id=seeded_arena.pk)
    again = arena_get(slug=seeded_arena.slug)
    assert again.matrix_version == again.content_version
    assert [getattr(again, c) for c in counted] == [getattr(live, c) for c in counted]
