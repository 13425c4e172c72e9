"""The read endpoints' JSON, fast: the same dicts the serializers of ``schema`` give (keys in the
same order, values of the same types), built directly from the selectors' output. DRF's
field-by-field ``to_representation`` costs about 15 µs a value, which is most of the time of the
30 × 300 matrix (9,000 cells). tests/arena/test_api_fast.py checks each against its serializer,
byte for byte."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from rest_framework import serializers

from arena import scoring
from arena.selectors.calls import first_leads
from arena.selectors.cells import CellLine, Quote
from arena.selectors.export import product_data
from arena.selectors.head_to_head import Comparison
from arena.selectors.leaderboard import BoardRow, Leaderboard, StoredRow
from arena.selectors.matrix import Matrix
from products.models import Product
from web.api.serializers.fields import call_data, range_data, rank_range_data, result_data

# An arena as ``arena_list`` and ``arena_get`` give it: annotated with its counts and its leader.
type ArenaRow = Any

# DRF's own formatting of dates and times (ISO 8601, UTC as ``Z``), for the few there are.
_DATE = serializers.DateField()
_DATETIME = serializers.DateTimeField()


def _date(value: date | None) -> str | None:
    return None if value is None else _DATE.to_representation(value)


def _datetime(value: datetime | None) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


def first_call_data(arena: ArenaRow) -> dict[str, Any]:
    """``CallSerializer`` of an arena's first against its second (``calls.first_leads``); with
    nothing scored, no leader and nothing close either."""
    leads = first_leads(arena)
    return {
        "leader": arena.leader_slug if leads else None,
        "close": bool(arena.leader_slug) and not leads,
    }


def arena_list_data(arenas: Iterable[ArenaRow]) -> list[dict[str, Any]]:
    """``ArenaListSerializer(arenas, many=True).data``."""
    return [
        {
            "slug": a.slug,
            "name": a.name,
            "description": a.description,
            "product_count": a.product_count,
            "story_count": a.story_count,
            "leader": {"slug": a.leader_slug, "name": a.leader_name} if a.leader_slug else None,
            "call": first_call_data(a),
            "updated": _date(a.updated),
            "scores_computed_at": _datetime(a.scores_computed_at),
            "url": a.get_absolute_url(),
        }
        for a in arenas
    ]


def _product_ref(product: Product | None) -> dict[str, str] | None:
    return None if product is None else {"slug": product.slug, "name": product.name}


type Ranges = Mapping[int, Mapping[str, Any]]


def persona_ranges(rows: Iterable[StoredRow]) -> dict[int, Any]:
    """Each product's ranges per persona (``ProductScore.persona_ranges``), by product id."""
    return {row.product_id: row.persona_ranges or {} for row in rows}


def persona_scored(
    product: Product | None, score: int | None, ranges: Ranges, persona: str
) -> dict[str, Any] | None:
    """``PersonaScoredSerializer`` of a persona's winner or runner-up."""
    if product is None:
        return None
    return {
        "product": product.slug,
        "name": product.name,
        "score": score,
        "range": range_data(ranges.get(product.pk, {}).get(persona)),
    }


def _leaderboard_row(row: StoredRow) -> dict[str, Any]:
    vs = getattr(row, "published_vs", row.vs)  # the stored partner, whatever the order shown
    return {
        "rank": row.rank,
        "product": _product_ref(row.product),
        "vs": vs.slug if vs is not None else None,
        **result_data(row.result),
        "rank_range": rank_range_data(row),
    }


def _weighted_row(i: int, row: BoardRow) -> dict[str, Any]:
    """A row of a leaderboard ranked by a visitor's weights, at place ``i``."""
    return {
        **_leaderboard_row(row),
        "rank": i,
        "personal_score": row.personal_score,
        "personal_range": range_data(row.personal_range),
        "published_rank": row.rank,
    }


def _persona_results(personas: Iterable[Any], ranges: Ranges) -> list[dict[str, Any]]:
    """``PersonaResultSerializer`` of the stored persona results, ranges from ``ranges``."""
    return [
        {
            "persona": r.persona.slug,
            "label": r.persona.label,
            "story_count": r.story_count,
            "winner": persona_scored(r.winner, r.winner_score, ranges, r.persona.slug),
            "runner_up": persona_scored(r.runner_up, r.runner_up_score, ranges, r.persona.slug),
        }
        for r in personas
    ]


def arena_detail_data(
    *,
    arena: ArenaRow,
    products: Iterable[Product],
    leaderboard: Sequence[StoredRow],
    personas: Iterable[Any],
    board: Leaderboard | None = None,
) -> dict[str, Any]:
    """``ArenaDetailSerializer`` of an arena (``arena_get``) with its products, stored
    leaderboard rows and persona results; with ``board`` (``arena_leaderboard`` with the caller's
    weights) the leaderboard in its order, each row with its personal score, and the weights."""
    if board is None:
        rows = [_leaderboard_row(row) for row in leaderboard]
    else:
        rows = [_weighted_row(i, row) for i, row in enumerate(board.rows, start=1)]
    out = {
        "slug": arena.slug,
        "name": arena.name,
        "description": arena.description,
        "story_count": arena.story_count,
        "cell_count": arena.cell_count,
        "updated": _date(arena.updated),
        "evidence_as_of": _date(arena.evidence_as_of),
        "scores_computed_at": _datetime(arena.scores_computed_at),
        "scores_pending": bool(arena.scores_pending),
        "products": [product_data(p) for p in products],
        "leaderboard": rows,
        "personas": _persona_results(personas, persona_ranges(leaderboard)),
    }
    if board is not None and board.reading is not None:
        out["weights"] = board.reading.by_kind("category")
        out["persona_weights"] = board.reading.by_kind("persona")
    return out


def story_data(story: Any) -> dict[str, Any]:
    """``StoryBaseSerializer``'s fields of a story (a ``StoryLine``)."""
    return {
        "id": story.pk,
        "text": story.text,
        "persona": story.persona.slug,
        "category": story.category.name,
        "group": story.subgroup.name if story.subgroup is not None else None,
        "weight": story.weight,
    }


def matrix_cell_data(c: CellLine) -> dict[str, Any]:
    """``MatrixCellSerializer`` of a cell."""
    return {
        "id": c.pk,
        "verdict": c.verdict,
        "proof": c.proof,
        "quality": c.quality,
        "evidence_as_of": _date(c.evidence_as_of),
        "backing": c.backing.value,
    }


def matrix_data(matrix: Matrix) -> dict[str, Any]:
    """``MatrixSerializer`` of an ``arena_matrix``."""
    stories = []
    for row in matrix.rows:
        story = story_data(row.story)
        story["cells"] = {c.product.slug: matrix_cell_data(c) for c in row.cells}
        stories.append(story)
    return {"products": [p.slug for p in matrix.products], "stories": stories}


def _winner(product: Product | None) -> str:
    return scoring.DRAWN if product is None else product.slug


def _compare_cell(c: CellLine) -> dict[str, Any]:
    """``CompareCellSerializer`` of a cell."""
    return {
        **matrix_cell_data(c),
        "rationale": c.rationale,
        "detail_published": bool(c.detail_published),
        "evidence": [_evidence(e) for e in c.evidence.all()],
    }


def _evidence(e: Quote) -> dict[str, Any]:
    """``EvidenceSerializer`` of a quote: ``url`` and ``checked_on`` only when it has them."""
    data: dict[str, Any] = {"source": e.source, "quote": e.quote}
    if e.url:
        data["url"] = e.url
    if e.checked_on is not None:
        data["checked_on"] = _date(e.checked_on)
    return data


def compare_data(cmp: Comparison) -> dict[str, Any]:
    """``CompareSerializer`` of a ``head_to_head_get``."""
    stories = []
    for row in cmp.rows:
        story = story_data(row.story)
        story["number"] = row.number
        story["round"] = _winner(row.winner)
        story["cells"] = {c.product.slug: _compare_cell(c) for c in (row.cell_a, row.cell_b)}
        stories.append(story)
    return {
        "products": [p.slug for p in cmp.products],
        "summary": {
            "rounds": cmp.round_count,
            "won": {p.slug: n for p, n in cmp.won.items()},
            "drawn": cmp.summary.drawn,
            "weighted": {p.slug: n for p, n in cmp.weighted.items()},
            "leader": _winner(cmp.leader),
        },
        "call": call_data(cmp.call_leader),
        "stories": stories,
    }
