"""The recompute stores what a visitor's weighting and a score's range are computed from: the sums
per category x persona, the PA Score's range and each persona score's range; the database refuses a
range that does not contain its score."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.db.models import F

from arena.models import ProductScore
from arena.recompute import arena_recompute_scores
from arena.scoring.results import Part, personal_score, product_results, score_range
from arena.selectors.inputs import arena_scoring_inputs

pytestmark = pytest.mark.django_db


def test_stored_parts_give_the_stored_scores(seeded_arena):
    inputs = arena_scoring_inputs(arena_id=seeded_arena.pk)
    expected = {
        r.product: r for r in product_results(inputs.products, inputs.stories, inputs.cells)
    }
    rows = list(ProductScore.objects.filter(arena=seeded_arena).select_related("product"))
    assert len(rows) == 6
    for row in rows:
        parts = tuple(Part(*p) for p in row.parts)
        assert parts == expected[row.product_id].parts
        # the PA Score is the personal score with every weight 1
        assert personal_score(parts) == row.pa_score
        assert (row.pa_low, row.pa_high) == score_range(parts)
        assert row.pa_low <= row.pa_score <= row.pa_high
        # the seed has unverified cells everywhere: every range is a real interval
        assert row.pa_low < row.pa_high
        for persona, (low, high) in row.persona_ranges.items():
            assert low <= row.persona_scores[persona] <= high


def test_a_recompute_stores_the_same_ranges_twice(seeded_arena):
    before = list(
        ProductScore.objects.filter(arena=seeded_arena)
        .values_list("product_id", "parts", "pa_low", "pa_high", "persona_ranges")
        .order_by("product_id")
    )
    arena_recompute_scores(arena_id=seeded_arena.pk)
    after = list(
        ProductScore.objects.filter(arena=seeded_arena)
        .values_list("product_id", "parts", "pa_low", "pa_high", "persona_ranges")
        .order_by("product_id")
    )
    assert before == after


@pytest.mark.parametrize(
    "change",
    [
        {"pa_low": F("pa_score") + 1},
        {"pa_high": F("pa_score") - 1},
        {"pa_low": None},  # a range needs both ends
        {"pa_score": None},  # no score, no range
    ],
)
def test_the_database_refuses_a_range_without_its_score(seeded_arena, change):
    row = ProductScore.objects.filter(arena=seeded_arena, pa_score__gt=0).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        ProductScore.objects.filter(pk=row.pk).update(**change)


def test_the_product_page_shows_the_score_with_its_range(client, seeded_arena):
    row = ProductScore.objects.select_related("product").get(
        arena=seeded_arena, product__name="Temporal"
    )
    html = client.get(f"/arenas/{seeded_arena.slug}/products/{row.product.slug}/").content.decode()
    assert (
        f'{row.pa_score}<span class="visually-hidden">/100, range</span> '
        f'<span class="rng">({row.pa_low}–{row.pa_high})</span>'
    ) in html
