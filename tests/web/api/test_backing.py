"""The API says what backs each cell and each product's evidence share, as the pages do."""

from __future__ import annotations

import pytest

from arena.models import ProductScore
from stories.models import Cell

pytestmark = pytest.mark.django_db

API = "/api/arenas/durable-execution-engines/"


def _backing(c: Cell) -> str:
    if not c.detail_published:
        return "none"
    if c.evidence.all():
        return "quotes"
    return "rationale" if c.rationale.strip() else "none"


def test_matrix_and_head_to_head_cells_carry_their_backing(client, seeded_arena):
    expected = {c.pk: _backing(c) for c in Cell.objects.prefetch_related("evidence")}
    matrix = client.get(f"{API}matrix/").json()
    seen = {c["id"]: c["backing"] for s in matrix["stories"] for c in s["cells"].values()}
    assert seen == expected
    pair = client.get(f"{API}compare/inngest/temporal/").json()
    for story in pair["stories"]:
        for cell in story["cells"].values():
            assert cell["backing"] == expected[cell["id"]]
    many = client.get(f"{API}compare/?products=inngest,temporal,dbos").json()
    for story in many["stories"]:
        for cell in story["cells"].values():
            assert cell["backing"] == expected[cell["id"]]


def test_leaderboard_rows_carry_the_evidence_share(client, seeded_arena):
    rows = client.get(API).json()["leaderboard"]
    cells = list(Cell.objects.prefetch_related("evidence").select_related("product"))
    for row in rows:
        mine = [c for c in cells if c.product.slug == row["product"]["slug"] and c.verdict != "n/a"]
        published = sum(_backing(c) != "none" for c in mine)
        assert (row["published_evidence"], row["judged"]) == (published, len(mine))
    by_slug = {r["product"]["slug"]: r for r in rows}
    assert by_slug["temporal"]["published_evidence"] == 0
    assert ProductScore.objects.filter(published_evidence__gt=0).count() == 4
