"""The stored leaderboard in a visitor's order (``order_by`` sorts stored rows), stale cell counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from itertools import groupby
from typing import TYPE_CHECKING, TypedDict, cast

from django.db.models import Count, Exists, Min, OuterRef, Q

from arena.models import Arena, ProductScore
from arena.scoring.ranking import (
    RANK_CATEGORY,
    RANK_INTEGRITY,
    RANK_PA,
    RANK_PERSONA,
    RANK_VERIFIED,
    order_by,
    places,
    rank_key,
    rank_key_split,
    rivals,
)
from arena.scoring.results import Weights, personal_score, range_groups, score_range
from arena.scoring.tally import ProductKey
from arena.selectors.arenas import arena_kept
from arena.selectors.weights import WeightsAsked, WeightsRead, weights_read
from products.models import Product
from stories import freshness
from stories.models import Cell
from stories.values import Verdict

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations  # a dev dependency, not installed in production


class StoredExtras(TypedDict):
    published: bool  # some verdict of the product has its rationale and evidence published


class BoardExtras(StoredExtras):
    stale_cells: int
    cells: int
    personal_score: int | None
    personal_range: tuple[int, int] | None
    position: int
    tied: bool
    decided_by: str
    published_position: int
    moved: int
    range_group: int | None
    published_vs: Product | None


type StoredRow = WithAnnotations[ProductScore, StoredExtras]
type BoardRow = WithAnnotations[ProductScore, BoardExtras]


def arena_score_list(*, arena: Arena) -> list[StoredRow]:
    """Stored rows in rank order with product, stored rival and ``published``; without their
    ``parts`` (``arena_score_parts``), which only a visitor's weights need."""

    def read() -> list[StoredRow]:  # (a query is built only when it is read)
        published = Cell.objects.filter(product=OuterRef("product_id"), detail_published=True)
        scores = (
            ProductScore.objects.filter(arena=arena)
            .select_related("product", "vs")
            .defer("parts")
            .annotate(published=Exists(published))
            .order_by("rank")
        )
        rows = list(scores)
        # a rival is another row's product: one object, so the kept list pickles each product once
        products = {row.product_id: row.product for row in rows}
        for row in rows:
            if row.vs_id in products:
                row.vs = products[row.vs_id]
        return rows

    return arena_kept(arena, "scores", read)


def arena_score_parts(*, arena: Arena) -> dict[ProductKey, list]:
    """Each product's stored score parts (what a visitor's weights re-score), kept apart from
    the rows: hundreds of small lists a render without weights would unpickle for nothing."""

    def read() -> dict[ProductKey, list]:
        return dict(ProductScore.objects.filter(arena=arena).values_list("product_id", "parts"))

    return arena_kept(arena, "score-parts", read)


@dataclass
class Leaderboard:
    key: str  # the rank key in effect (RANK_PA when the asked one is unknown)
    label: str
    rows: list[BoardRow]  # in the asked order, each with its shown rank (``position``)
    personas: list[str]  # persona slugs, the persona score columns
    categories: list[str]  # category names, for the rank options
    options: list[tuple[str, list[tuple[str, str]]]]  # (group, [(rank key, label)])
    # a visitor's weights (None: the published weighting): rows ranked by ``personal_score``
    weights: Weights | None = None
    reading: WeightsRead | None = None  # the weights as read

    weighted = property(lambda self: self.weights is not None)
    by_pa = property(lambda self: self.key == RANK_PA and not self.weighted)
    by_verified = property(lambda self: self.key == RANK_VERIFIED)
    by_integrity = property(lambda self: self.key == RANK_INTEGRITY)
    category = property(lambda self: self._named(RANK_CATEGORY))  # the category ranked by, if any
    persona = property(lambda self: self._named(RANK_PERSONA))

    @property
    def weights_query(self) -> str:
        return self.reading.query if self.reading is not None and self.weighted else ""

    @property
    def weights_ignored(self) -> tuple[str, ...]:
        return self.reading.ignored if self.reading is not None else ()

    @property
    def range_groups(self) -> list[list[BoardRow]]:
        """Runs of two or more rows whose score ranges overlap: an order the evidence leaves open."""
        runs = (list(g) for k, g in groupby(self.rows, lambda r: r.range_group) if k is not None)
        return [rows for rows in runs if len(rows) > 1]

    @property
    def ties(self) -> list[tuple[int, list[BoardRow], str]]:
        """The groups of rows sharing a rank: (rank, rows, what ordered them)."""
        runs = (list(g) for _, g in groupby([r for r in self.rows if r.tied], lambda r: r.position))
        return [(rows[0].position, rows, rows[0].decided_by) for rows in runs]

    def _named(self, kind: str) -> str | None:
        found, name = rank_key_split(self.key)
        return name if found == kind else None


_GROUPS = {RANK_CATEGORY: "Category", RANK_PERSONA: "User type"}
_EVIDENCE = [(RANK_VERIFIED, "Verified share"), (RANK_INTEGRITY, "Integrity")]


def arena_leaderboard(
    *,
    arena: Arena,
    key: str = RANK_PA,
    categories: list[str] | None = None,
    asked: WeightsAsked | None = None,
    stale: bool = True,
) -> Leaderboard:
    """The stored rows ordered by a rank key (unknown: ``pa``) or by the weights ``asked``."""
    scores = cast(list[BoardRow], arena_score_list(arena=arena))
    counts = arena_stale_counts(arena=arena, today=freshness.today()) if stale else {}
    for score in scores:
        score.stale_cells, score.cells = counts.get(score.product_id, (0, 0))
    given = asked is not None and asked.given
    if categories is None or given:  # the parts (a visitor's weights re-score them)
        parts = arena_score_parts(arena=arena)
        for score in scores:
            score.parts = parts[score.product_id]
    if categories is None:  # in the order of their stories (the parts keep it), then by name
        seen = dict.fromkeys(part[0] for s in scores for part in s.parts)
        categories = [*seen, *sorted({n for s in scores for n in s.category_scores} - seen.keys())]
    personas: list[str] = sorted({slug for s in scores for slug in s.persona_scores})
    options = [
        ("Overall", [(RANK_PA, "PA Score")]),
        (_GROUPS[RANK_CATEGORY], [(rank_key(RANK_CATEGORY, c), c) for c in categories]),
        (_GROUPS[RANK_PERSONA], [(rank_key(RANK_PERSONA, p), p) for p in personas]),
        ("Evidence", _EVIDENCE),
    ]
    labels = dict(option for _, group in options for option in group)
    reading = weights_read(asked=asked or WeightsAsked(), categories=categories, personas=personas)
    # the personal scores are shown even for weights all 1, which rank as the published
    personal = reading.weights if given else None
    weights = personal if personal is not None and not personal.published else None
    if key not in labels or weights is not None:
        key = RANK_PA
    ordered = _ranked(scores, key, weights, personal)
    group = _GROUPS.get(rank_key_split(key)[0])
    label = f"{group}: {labels[key]}" if group else labels[key]
    if weights is not None:
        label = "Your weights"
    return Leaderboard(key, label, ordered, personas, categories, options, weights, reading)


def _ranked(
    scores: list[BoardRow], key: str, weights: Weights | None, personal: Weights | None
) -> list[BoardRow]:
    """The rows in the order of ``key`` (or ``weights``), with their places and range groups."""
    published = order_by(scores, RANK_PA)
    for row, place in zip(published, places(published, RANK_PA), strict=True):
        row.published_position = place.rank
    ordered = order_by(scores, key, weights)
    for row in ordered:
        row.personal_score = row.personal_range = None
        if personal is not None:
            row.personal_score = personal_score(row.parts, personal)
            row.personal_range = score_range(row.parts, personal)
    shown_ranges = [row.personal_range if weights else row.pa_range for row in ordered]
    ranged = weights is not None or key == RANK_PA
    groups = range_groups(shown_ranges) if ranged else [None] * len(ordered)
    rival_of = rivals(
        [s.product_id for s in ordered], [s.product_id for s in ordered if s.published]
    )
    by_id: dict[ProductKey, BoardRow] = {s.product_id: s for s in scores}
    for row, place, group in zip(ordered, places(ordered, key, weights), groups, strict=True):
        row.position, row.tied, row.decided_by = place.rank, place.tied, place.decided_by
        row.moved = row.published_position - place.rank
        row.range_group = group
        # its head-to-head: the nearest rival here with published detail (the API's: the stored)
        row.published_vs = row.vs
        rival = rival_of[row.product_id]
        row.vs = by_id[rival].product if rival is not None else None
    return ordered


def arena_product_ranking(
    *, arena: Arena, key: str = RANK_PA
) -> tuple[list[Product], list[ProductKey]]:
    """Products in column order, and the scored in ``key``'s order (unknown: ``pa``): one query."""
    products = Product.objects.filter(arena=arena).select_related("score").order_by("position")
    # (a product without stored scores has no ``score``: the reverse one-to-one raises)
    scores = [p.score for p in products if hasattr(p, "score")]
    kind, name = rank_key_split(key)
    if named := {RANK_CATEGORY: "category_scores", RANK_PERSONA: "persona_scores"}.get(kind):
        known = any(name in getattr(s, named) for s in scores)
    else:
        known = name is None and kind in (RANK_PA, RANK_VERIFIED, RANK_INTEGRITY)
    ordered = order_by(scores, key if known else RANK_PA)
    return list(products), [s.product_id for s in ordered]


def arena_stale_counts(
    *, arena: Arena, today: date, days: int | None = None
) -> dict[int, tuple[int, int]]:
    """``{product id: (stale cells, judged cells)}`` on ``today`` (kept)."""
    days = freshness.stale_days() if days is None else days

    def read() -> dict[int, tuple[int, int]]:
        rows = (
            Cell.objects.on_pages()
            .filter(story__arena=arena)
            .order_by()
            .values("product_id")
            .annotate(
                cells=Count("pk", filter=~Q(verdict=Verdict.NA)),  # (an n/a cell is never stale)
                stale=Count("pk", filter=freshness.stale_q(today=today, days=days)),
            )
            .values_list("product_id", "stale", "cells")
        )
        return {pid: (s, c) for pid, s, c in rows}

    return arena_kept(arena, f"stale:{today}:{days}", read)


def oldest_stale_scores() -> datetime | None:
    """Since when the longest-waiting arena's stored scores miss a change (/metrics)."""
    return Arena.objects.aggregate(oldest=Min("scores_stale_since"))["oldest"]


def given_up_count() -> int:
    """How many arenas the sweep no longer sends, their change failed to recompute (/metrics)."""
    return Arena.objects.given_up().count()
