"""The page reads on their own: what they find, what they return when they find nothing, the one
matrix builder and the one grouping of stories under their headings."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from datetime import date
from types import SimpleNamespace

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import arena.selectors
from arena.selectors.arenas import (
    arena_counted,
    arena_get,
    arena_list,
    arena_product_pair_get,
)
from arena.selectors.cells import cell_page_get, story_get
from arena.selectors.compare import comparison_get
from arena.selectors.leaderboard import arena_leaderboard, arena_product_ranking
from arena.selectors.matrix import MatrixFilters, arena_matrix, matrix_block_list, product_get
from products.models import Product
from stories.values import Verdict
from tests.factories import (
    ArenaFactory,
    CategoryFactory,
    CellFactory,
    ProductFactory,
    StoryFactory,
    SubGroupFactory,
)


def row(category: int, subgroup: int | None) -> SimpleNamespace:
    story = SimpleNamespace(
        category_id=category,
        category=SimpleNamespace(pk=category),
        subgroup_id=subgroup,
        subgroup=None if subgroup is None else SimpleNamespace(pk=subgroup),
    )
    return SimpleNamespace(story=story)


def test_consecutive_rows_of_one_category_and_subgroup_form_one_table():
    rows = [row(1, None), row(1, 10), row(1, 10), row(2, None), row(1, None)]
    blocks = matrix_block_list(rows=rows)
    shape = [
        (b.category.pk, [(getattr(g.subgroup, "pk", None), len(g.rows)) for g in b.groups])
        for b in blocks
    ]
    assert shape == [(1, [(None, 1), (10, 2)]), (2, [(None, 1)]), (1, [(None, 1)])]


def test_every_public_read_takes_keyword_arguments_only():
    modules = [
        importlib.import_module(f"arena.selectors.{m.name}")
        for m in pkgutil.iter_modules(arena.selectors.__path__)
    ]
    reads = [
        read
        for module in modules
        for name, read in vars(module).items()
        if inspect.isfunction(read)
        and read.__module__ == module.__name__
        and (name.startswith("arena_") or name.endswith(("_get", "_list")))
        and name != "arena_kept"  # (the reads' cache, not a read)
    ]
    assert len(reads) > 20
    positional = [
        f"{read.__name__}({p.name})"
        for read in reads
        for p in inspect.signature(read).parameters.values()
        if p.kind is not p.KEYWORD_ONLY
    ]
    assert positional == []


@pytest.mark.django_db
def test_reads_of_unknown_things_return_none():
    arena = arena_get(slug=ArenaFactory().slug)
    assert arena_get(slug="no-such-arena") is None
    assert product_get(arena=arena, slug="no-such-product") is None
    assert story_get(arena=arena, pk=999_999) is None
    assert cell_page_get(pk=999_999) is None


@pytest.mark.django_db
def test_product_pair_leaves_out_a_slug_with_no_product_of_the_arena():
    product = ProductFactory()
    elsewhere = ProductFactory()
    pair = arena_product_pair_get(arena=product.arena, a=product.slug, b=elsewhere.slug)
    assert pair == {product.slug: product}


@pytest.mark.django_db
def test_a_story_of_another_arena_is_not_found():
    story = StoryFactory()
    other = arena_get(slug=ArenaFactory().slug)
    assert story_get(arena=other, pk=story.pk) is None


@pytest.mark.django_db
def test_matrix_has_one_column_per_given_product():
    cell = CellFactory()
    other = CellFactory(story=cell.story, product=ProductFactory(arena=cell.story.arena))
    arena = arena_get(slug=cell.story.arena.slug)
    everyone = arena_matrix(arena=arena)
    assert [[c.pk for c in r.cells] for r in everyone.rows] == [[cell.pk, other.pk]]
    one = arena_matrix(arena=arena, products=[other.product])
    assert [[c.product.name for c in r.cells] for r in one.rows] == [[other.product.name]]


@pytest.mark.django_db
def test_matrix_verdict_filter_keeps_stories_where_any_product_has_it():
    na = CellFactory(na=True)
    arena = na.story.arena
    CellFactory(story=na.story, product=ProductFactory(arena=arena))
    CellFactory(story=StoryFactory(arena=arena), product=na.product)
    matrix = arena_matrix(
        arena=arena_get(slug=arena.slug), filters=MatrixFilters(verdict=Verdict.NA)
    )
    assert ([r.story.pk for r in matrix.rows], matrix.shown, matrix.total) == ([na.story.pk], 1, 2)


@pytest.mark.django_db
def test_head_to_head_numbers_rounds_within_each_subgroup():
    arena = ArenaFactory()
    a, b = ProductFactory(arena=arena), ProductFactory(arena=arena)
    first, second = CategoryFactory(arena=arena), CategoryFactory(arena=arena)
    group = SubGroupFactory(category=first)
    stories = [
        StoryFactory(arena=arena, category=first),
        StoryFactory(arena=arena, category=first, subgroup=group),
        StoryFactory(arena=arena, category=first, subgroup=group),
        StoryFactory(arena=arena, category=second),
    ]
    for story in stories:
        CellFactory(story=story, product=a)
        CellFactory(story=story, product=b, partial=True)
    cmp = comparison_get(arena=arena_get(slug=arena.slug), products=[a, b], evidence=True)
    assert [(r.number, r.winner) for r in cmp.rows] == [(1, a), (1, a), (2, a), (1, a)]
    assert [len(block.groups) for block in cmp.blocks] == [2, 1]


@pytest.mark.django_db
def test_head_to_head_leaves_out_stories_where_a_cell_is_na():
    cell = CellFactory()
    other = CellFactory(story=cell.story, product=ProductFactory(arena=cell.story.arena), na=True)
    arena = arena_get(slug=cell.story.arena.slug)
    pair = [cell.product, other.product]
    assert comparison_get(arena=arena, products=pair, evidence=True).rows == []


@pytest.mark.django_db
def test_cell_page_lists_head_to_heads_with_each_applicable_other_product():
    cell = CellFactory()
    arena = cell.story.arena
    weaker = CellFactory(story=cell.story, product=ProductFactory(arena=arena), partial=True)
    CellFactory(story=cell.story, product=ProductFactory(arena=arena), na=True)
    page = cell_page_get(pk=cell.pk)
    assert page.head_to_heads == [(weaker, cell.product)]


@pytest.mark.django_db
def test_matrix_verdict_filter_ignores_the_cells_of_retired_products():
    disputed = CellFactory(disputed=True)
    arena = disputed.story.arena
    CellFactory(story=disputed.story, product=ProductFactory(arena=arena))
    Product.all_objects.filter(pk=disputed.product.pk).update(retired_at=timezone.now())
    matrix = arena_matrix(
        arena=arena_get(slug=arena.slug), filters=MatrixFilters(verdict=Verdict.DISPUTED)
    )
    assert matrix.rows == []


def _products(n: int) -> list:
    return [SimpleNamespace(pk=i, slug=f"p{i}") for i in range(1, n + 1)]


def test_matrix_shows_every_product_up_to_8_else_the_top_8_of_the_ranking_in_its_order():
    from arena.selectors.matrix import MATRIX_COLUMNS, matrix_column_list

    few = _products(MATRIX_COLUMNS)
    # every product, the ranked ones first in rank order, then the rest in column order
    assert [p.pk for p in matrix_column_list(products=few, ranking=[3, 1])] == [
        3, 1, 2, 4, 5, 6, 7, 8
    ]  # fmt: skip
    many = _products(12)
    ranking = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    top = matrix_column_list(products=many, ranking=ranking)
    assert [p.pk for p in top] == [12, 11, 10, 9, 8, 7, 6, 5]  # in rank order
    # products without a rank come after the ranked ones
    assert [p.pk for p in matrix_column_list(products=many, ranking=[12, 2])] == [
        12, 2, 1, 3, 4, 5, 6, 7
    ]  # fmt: skip
    picked = matrix_column_list(products=many, ranking=ranking, show=["p9", "p2", "nope"])
    assert [p.pk for p in picked] == [9, 2]
    assert matrix_column_list(products=many, ranking=ranking, show=["nope"]) == top


@pytest.mark.django_db
def test_big_matrix_loads_its_first_category_and_collapses_the_others(
    django_assert_num_queries,
):
    arena = ArenaFactory()
    first, second = CategoryFactory(arena=arena), CategoryFactory(arena=arena)
    product = ProductFactory(arena=arena)
    for category in (first, second, first):
        CellFactory(story=StoryFactory(arena=arena, category=category), product=product)
    arena = arena_get(slug=arena.slug)
    with django_assert_num_queries(2):
        matrix = arena_matrix(arena=arena, products=[product], collapse_above=2)
    assert matrix.shown == 3 and matrix.collapsed == {second.pk}
    blocks = [(b.category.pk, b.count, b.collapsed) for b in matrix.blocks]
    assert blocks == [(first.pk, 1, False), (second.pk, 1, True), (first.pk, 1, False)]
    assert [len(r.cells) for r in matrix.rows] == [1, 1]  # the collapsed one's story not kept
    # a category asked for is loaded whole; at or below the bound nothing collapses
    by_category = arena_matrix(
        arena=arena,
        products=[product],
        filters=MatrixFilters(category=matrix.blocks[1].slug),
        collapse_above=0,
    )
    assert [(len(r.cells), r.story.category.pk) for r in by_category.rows] == [(1, second.pk)]
    assert arena_matrix(arena=arena, collapse_above=3).collapsed == set()


@pytest.mark.django_db
def test_product_ranking_orders_as_the_leaderboard(big_arena):
    arena = arena_get(slug=big_arena.slug)
    for key in ("pa", "verified", "integrity", "persona:ai-native", "no-such-key"):
        products, ranking = arena_product_ranking(arena=arena, key=key)
        board = arena_leaderboard(arena=arena, key=key)
        assert ranking == [row.product_id for row in board.rows], key
        assert [p.position for p in products] == sorted(p.position for p in products)


@pytest.mark.django_db
def test_arena_get_reads_as_the_arena_list_does():
    story = StoryFactory()
    CellFactory(story=story)
    ArenaFactory()  # another, listed too
    listed = next(a for a in arena_counted(arenas=arena_list()) if a.pk == story.arena_id)
    caches["pages"].clear()
    got = arena_get(slug=story.arena.slug)
    fields = ("pk", "name", "product_count", "story_count", "cell_count", "content_version")
    assert [getattr(got, f) for f in fields] == [getattr(listed, f) for f in fields]
    assert (got.story_count, got.cell_count) == (1, 1)
    assert arena_get(slug="no-such-arena") is None
    assert arena_get(slug="x' OR 1=1 --") is None


@pytest.mark.django_db
def test_arena_get_counts_the_judged_cells_and_their_evidence_days():
    """The cell counts and evidence days: the n/a cells counted, their days left out."""
    story = StoryFactory()
    second = StoryFactory(arena=story.arena, category=story.category)
    CellFactory(story=story, evidence_as_of=date(2026, 3, 1))
    CellFactory(story=second, evidence_as_of=date(2026, 5, 9))
    CellFactory(story=second, na=True, evidence_as_of=date(2020, 1, 1))  # n/a: not a day
    CellFactory(story=story, evidence_as_of=None)
    empty = ArenaFactory()  # no cells at all
    fields = ("cell_count", "na_count", "evidence_oldest", "evidence_newest")
    got = arena_get(slug=story.arena.slug)
    assert [getattr(got, f) for f in fields] == [4, 1, date(2026, 3, 1), date(2026, 5, 9)]
    got_empty = arena_get(slug=empty.slug)
    assert [getattr(got_empty, f) for f in fields] == [0, 0, None, None]


@pytest.mark.django_db
def test_a_list_counts_only_the_arenas_whose_counts_are_not_kept(django_assert_num_queries):
    from arena.recompute import arena_content_changed

    stories = [StoryFactory() for _ in range(3)]
    arenas = [s.arena for s in stories]
    with django_assert_num_queries(2):  # the arenas, then all their counts in one query
        first = {a.pk: a.story_count for a in arena_counted(arenas=arena_list())}
    assert first == {a.pk: 1 for a in arenas}
    with django_assert_num_queries(1):  # every count kept
        arena_counted(arenas=arena_list())
    StoryFactory(arena=arenas[1], category=stories[1].category)
    arena_content_changed(arena_id=arenas[1].pk)  # one arena's version moves
    with CaptureQueriesContext(connection) as queries:
        again = {a.pk: a.story_count for a in arena_counted(arenas=arena_list())}
    assert again == {**first, arenas[1].pk: 2}
    assert len(queries) == 2  # the arenas, then the one arena's counts
    counted = re.findall(r'"arena_arena"\."id" IN \(([^)]*)\)', queries[1]["sql"])
    assert counted == [str(arenas[1].pk)]


@pytest.mark.django_db
def test_an_arena_s_counts_are_read_once_per_content_version(
    seeded_arena, django_assert_num_queries
):
    from arena.recompute import arena_content_changed
    from stories.models import Cell

    first = arena_get(slug=seeded_arena.slug)
    with django_assert_num_queries(1):
        again = arena_get(slug=seeded_arena.slug)
    assert (again.cell_count, again.na_count) == (first.cell_count, first.na_count)
    judged = Cell.objects.on_pages().filter(story__arena=seeded_arena)
    Cell.objects.filter(pk=judged.exclude(verdict=Verdict.NA).first().pk).update(
        verdict=Verdict.NA, proof=None, quality=None
    )
    arena_content_changed(arena_id=seeded_arena.pk)
    with django_assert_num_queries(2):  # the arena, then its counts at the new version
        changed = arena_get(slug=seeded_arena.slug)
    assert changed.na_count == first.na_count + 1 == judged.filter(verdict=Verdict.NA).count()
    listed = arena_get(slug=seeded_arena.slug)
    assert (changed.cell_count, changed.na_count) == (listed.cell_count, listed.na_count)
    assert arena_get(slug="no-such-arena") is None
