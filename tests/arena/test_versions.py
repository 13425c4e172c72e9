"""The content versions pages are cached and revalidated by (``arena.selectors.versions``): one
query each, moved by a content change, and each carrying the page cache's epoch."""

from __future__ import annotations

import pytest

from arena.models import Arena, CacheEpoch
from arena.recompute import arena_content_changed
from arena.selectors.arenas import (
    arena_adjacent_list,
    arena_category_list,
    arena_get,
    arena_persona_result_list,
    arena_product_list,
)
from arena.selectors.leaderboard import arena_score_list
from arena.selectors.versions import arena_version_get, cell_version_get, site_version_get
from tests.factories import ArenaFactory, CellFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def epoch(db: None) -> str:
    CacheEpoch.objects.update_or_create(pk=1, defaults={"value": "feedface"})
    return "feedface"


def test_each_version_is_one_query_and_names_the_arena_its_version_and_the_epoch(
    epoch, django_assert_num_queries
):
    cell = CellFactory()
    arena = cell.story.arena
    with django_assert_num_queries(3):
        versions = (
            arena_version_get(slug=arena.slug),
            cell_version_get(pk=cell.pk),
            site_version_get(),
        )
    own = f"{arena.pk}-{arena.content_version}.e{epoch}"
    count = Arena.objects.count()
    total = sum(Arena.objects.values_list("content_version", flat=True))
    last = Arena.objects.order_by("pk").last().pk
    assert versions == (own, own, f"{count}.{total}.{last}.e{epoch}")


def test_a_content_change_moves_the_versions_of_its_arena_and_the_site(epoch):
    cell, other = CellFactory(), ArenaFactory()
    arena = cell.story.arena
    before = (
        arena_version_get(slug=arena.slug),
        cell_version_get(pk=cell.pk),
        site_version_get(),
        arena_version_get(slug=other.slug),
    )
    arena_content_changed(arena_id=arena.pk)
    after = (
        arena_version_get(slug=arena.slug),
        cell_version_get(pk=cell.pk),
        site_version_get(),
        arena_version_get(slug=other.slug),
    )
    assert [b != a for b, a in zip(before, after, strict=True)] == [True, True, True, False]


def test_nothing_found_is_none_and_an_empty_site_still_names_the_epoch(epoch):
    Arena.objects.all().delete()
    assert arena_version_get(slug="nowhere") is None
    assert cell_version_get(pk=1) is None
    assert cell_version_get(pk=2**63) is None  # past what the database takes
    assert site_version_get() == f"0.0.0.e{epoch}"


def test_without_an_epoch_row_the_versions_go_without_it(db):
    CacheEpoch.objects.all().delete()
    cell = CellFactory()
    arena = cell.story.arena
    assert arena_version_get(slug=arena.slug) == f"{arena.pk}-{arena.content_version}"
    assert site_version_get().count(".") == 2


def test_an_arenas_kept_reads_are_read_once_per_content_version(
    seeded_arena, epoch, django_assert_num_queries
):
    reads = (
        arena_score_list,
        arena_persona_result_list,
        arena_category_list,
        arena_product_list,
        arena_adjacent_list,
    )
    arena = arena_get(slug=seeded_arena.slug)
    first = [[row.pk for row in read(arena=arena)] for read in reads]
    with django_assert_num_queries(0):
        assert [[row.pk for row in read(arena=arena)] for read in reads] == first
    arena_content_changed(arena_id=arena.pk)
    arena = arena_get(slug=seeded_arena.slug)
    with django_assert_num_queries(len(reads)):  # a new version: each read anew
        assert [[row.pk for row in read(arena=arena)] for read in reads] == first
    plain = Arena.objects.get(pk=arena.pk)  # (read without its cache epoch: never kept)
    with django_assert_num_queries(len(reads)):
        assert [[row.pk for row in read(arena=plain)] for read in reads] == first
