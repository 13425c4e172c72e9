"""The stored leaderboard, ordered by the rank key a visitor picks. Ordering stored rows by the
published rules (``scoring.order_by``) is not scoring them: nothing is computed here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, cast

from django.db.models import Exists, OuterRef

from arena import scoring
from arena.models import Arena, ProductScore
from arena.scoring import (
    RANK_CATEGORY,
    RANK_INTEGRITY,
    RANK_PA,
    RANK_PERSONA,
    RANK_VERIFIED,
    rank_key,
    rank_key_split,
)
from arena.selectors.arenas import arena_kept
from arena.selectors.freshness import arena_stale_counts
from arena.selectors.weights import WeightsAsked, WeightsRead, weights_read
from products.models import Product
from stories import freshness
from stories.models import Cell

if TYPE_CHECKING:
    # django-stubs' helper types: a dev dependency, not installed in production
    from django_stubs_ext import WithAnnotations


class StoredExtras(TypedDict):
    result: scoring.ProductResult  # the row read back as the product's result
    published: bool  # some verdict of the product has its rationale and evidence published


class BoardExtras(StoredExtras):
    """What ``arena_leaderboard`` adds to a stored row (see ``Leaderboard.rows``)."""

    stale_cells: int
    cells: int
    pa_range: tuple[int, int] | None
    personal_score: int | None
    personal_range: tuple[int, int] | None
    position: int
    tied: bool
    decided_by: str
    published_position: int
    moved: int
    range_group: int | None
    published_vs: Product | None


# A stored leaderboard row as ``arena_score_list`` reads it, and as ``arena_leaderboard`` ranks it.
type StoredRow = WithAnnotations[ProductScore, StoredExtras]
type BoardRow = WithAnnotations[ProductScore, BoardExtras]


def _stored_row(score: ProductScore, product: Product) -> StoredRow:
    """``score`` with its product and its ``result``."""
    row = cast(StoredRow, score)
    row.product = product
    row.result = scoring.ProductResult.from_stored(score, name=product.name)
    return row


def arena_score_list(*, arena: Arena) -> list[StoredRow]:
    """Stored leaderboard rows in rank order, with product, the row as the product's result
    (``result``), whether any of its verdicts has its rationale and evidence published
    (``published``) and its stored head-to-head partner: one query, none while kept
    (``arenas.arena_kept``)."""
    published = Exists(Cell.objects.filter(product=OuterRef("product_id"), detail_published=True))
    scores = (
        ProductScore.objects.filter(arena=arena)
        .select_related("product", "vs")
        .annotate(published=published)
        .order_by("rank")
    )
    # (each read of the kept rows is a copy of its own: the board sets its attributes on them)
    return arena_kept(arena, "scores", lambda: [_stored_row(s, s.product) for s in scores])


@dataclass(frozen=True)
class RankOption:
    key: str
    label: str


@dataclass
class Leaderboard:
    key: str  # the rank key in effect (RANK_PA when the asked one is unknown)
    label: str
    # stored rows in the asked order; ``row.position`` is the shown rank (shared by ties:
    # ``row.tied``, ``row.decided_by``), ``row.vs`` the product its head-to-head link pairs it with
    rows: list[BoardRow]
    personas: list[str]  # persona slugs, the persona score columns
    categories: list[str]  # category names, for the rank options
    options: list[tuple[str, list[RankOption]]]
    # A visitor's weights (``?weights=``), None when the published weighting is shown. With them
    # the rows are ranked by ``row.personal_score`` (its range ``row.personal_range``), and
    # ``row.published_position`` / ``row.moved`` say where the published ranking has the row and
    # how many places it went up (negative: down).
    weights: scoring.Weights | None = None
    # The weights as read (``selectors.weights``): the panel's controls, the canonical
    # ``?weights=`` value, the summary above the table and the entries that were left out.
    reading: WeightsRead | None = None

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    @property
    def weights_query(self) -> str:
        """The canonical ``?weights=`` value of the board's weights, ``""`` when published."""
        return self.reading.query if self.reading is not None and self.weighted else ""

    @property
    def weights_ignored(self) -> tuple[str, ...]:
        return self.reading.ignored if self.reading is not None else ()

    @property
    def range_groups(self) -> list[list[BoardRow]]:
        """Runs of rows whose score ranges overlap (``scoring.range_groups``) when the board is
        ranked by a score with a range (PA Score or the visitor's weights): their order is not
        settled by the evidence. Only groups of two or more."""
        groups: dict[int, list[BoardRow]] = {}
        for row in self.rows:
            group = getattr(row, "range_group", None)  # (absent: rows ranked before ranges)
            if group is not None:
                groups.setdefault(group, []).append(row)
        return [rows for rows in groups.values() if len(rows) > 1]

    @property
    def leader(self) -> BoardRow | None:
        return self.rows[0] if self.rows else None

    @property
    def ties(self) -> list[tuple[int, list[BoardRow], str]]:
        """The groups of rows sharing a rank: (rank, rows, what ordered them)."""
        groups: dict[int, list[BoardRow]] = {}
        for row in self.rows:
            if row.tied:
                groups.setdefault(row.position, []).append(row)
        return [(rank, rows, rows[0].decided_by) for rank, rows in groups.items()]

    # What the table marks as the column ranked by.
    @property
    def by_pa(self) -> bool:
        return self.key == RANK_PA and not self.weighted

    @property
    def by_verified(self) -> bool:
        return self.key == RANK_VERIFIED

    @property
    def by_integrity(self) -> bool:
        return self.key == RANK_INTEGRITY

    @property
    def category(self) -> str | None:
        """The category ranked by, shown as an extra column."""
        kind, name = rank_key_split(self.key)
        return name if kind == RANK_CATEGORY else None

    @property
    def persona(self) -> str | None:
        """The persona ranked by."""
        kind, name = rank_key_split(self.key)
        return name if kind == RANK_PERSONA else None


_GROUPS = {RANK_CATEGORY: "Category", RANK_PERSONA: "User type"}


def _rank_options(categories: list[str], personas: list[str]) -> list[tuple[str, list[RankOption]]]:
    return [
        ("Overall", [RankOption(RANK_PA, "PA Score")]),
        (_GROUPS[RANK_CATEGORY], [RankOption(rank_key(RANK_CATEGORY, c), c) for c in categories]),
        (_GROUPS[RANK_PERSONA], [RankOption(rank_key(RANK_PERSONA, p), p) for p in personas]),
        (
            "Evidence",
            [
                RankOption(RANK_VERIFIED, "Verified share"),
                RankOption(RANK_INTEGRITY, "Integrity"),
            ],
        ),
    ]


def arena_leaderboard(
    *,
    arena: Arena,
    key: str = RANK_PA,
    categories: list[str] | None = None,
    weights: scoring.Weights | None = None,
    asked: WeightsAsked | None = None,
    stale: bool = True,
) -> Leaderboard:
    """The stored leaderboard ordered by one rank key (``pa``, ``category:<name>``,
    ``persona:<slug>``, ``verified``, ``integrity``; an unknown key means ``pa``), or by a
    visitor's ``weights`` (they override the key unless they are all 1), given as
    ``scoring.Weights`` or as ``asked`` (``?weights=`` or the panel's fields, read here against the
    stored scores' categories and personas): two queries, the scores and each product's count of
    stale cells (``row.stale_cells`` of ``row.cells``; not counted with ``stale=False``). Whenever
    weights are given, even all 1, each row has its ``personal_score`` and ``personal_range``.
    ``categories`` gives the category names in matrix order (else: the order of their stories, as
    the scores' parts have them)."""
    scores = cast(list[BoardRow], arena_score_list(arena=arena))
    # each product's stale cells today (one aggregate query; ``stale=False``: not counted), shown
    # beside its verified share
    counts = arena_stale_counts(arena=arena, today=freshness.today()) if stale else {}
    for score in scores:
        score.stale_cells, score.cells = counts.get(score.product_id, (0, 0))
    if categories is None:
        categories = _category_order(scores)
    personas: list[str] = sorted({slug for s in scores for slug in s.persona_scores})
    options = _rank_options(categories, personas)
    labels = {o.key: o.label for _, group in options for o in group}
    reading = weights_read(asked=asked or WeightsAsked(), categories=categories, personas=personas)
    if weights is None and asked is not None and asked.given:
        weights = reading.weights
    elif weights is not None:
        reading = WeightsRead(weights, reading.keys)
    personal = weights  # (the personal scores are shown even for weights all 1)
    if weights is not None and weights.published:
        weights = None
    if key not in labels or weights is not None:
        key = RANK_PA
    published = scoring.order_by([s.result for s in scores], RANK_PA)
    ordered = _ranked(scores, published, key, weights, personal)
    group = _GROUPS.get(rank_key_split(key)[0])
    label = f"{group}: {labels[key]}" if group else labels[key]
    if weights is not None:
        label = "Your weights"
    return Leaderboard(key, label, ordered, personas, categories, options, weights, reading)


def _ranked(
    scores: list[BoardRow],
    published: list[scoring.ProductResult],
    key: str,
    weights: scoring.Weights | None,
    personal: scoring.Weights | None,
) -> list[BoardRow]:
    """The rows in the order of ``key`` (of ``weights`` when given), each with its place there
    and in the ``published`` order, its range group and the rival its head-to-head links to."""
    by_id: dict[scoring.ProductKey, BoardRow] = {s.product_id: s for s in scores}
    for r, place in zip(published, scoring.places(published, RANK_PA), strict=True):
        by_id[r.product].published_position = place.rank
    results = [s.result for s in scores]
    mine = scoring.order_by(results, key, weights)
    ordered = [by_id[r.product] for r in mine]
    for row in ordered:
        row.pa_range = row.result.pa_range
        row.personal_score = row.personal_range = None
        if personal is not None:
            row.personal_score = scoring.personal_score(row.result.parts, personal)
            row.personal_range = scoring.score_range(row.result.parts, personal)
    shown_ranges = [row.personal_range if weights else row.pa_range for row in ordered]
    ranged = weights is not None or key == RANK_PA
    groups = scoring.range_groups(shown_ranges) if ranged else [None] * len(ordered)
    rivals = scoring.rivals(
        [s.product_id for s in ordered], [s.product_id for s in ordered if s.published]
    )
    places = scoring.places(mine, key, weights)
    for row, place, group in zip(ordered, places, groups, strict=True):
        row.position, row.tied, row.decided_by = place.rank, place.tied, place.decided_by
        row.moved = row.published_position - place.rank
        row.range_group = group
        # the head-to-head the row links to: its nearest rival in this order with published detail
        # (the stored partner, which the API gives, kept as ``published_vs``)
        row.published_vs = row.vs
        rival = rivals[row.product_id]
        row.vs = by_id[rival].product if rival is not None else None
    return ordered


def _category_order(scores: list[BoardRow]) -> list[str]:
    """The categories of the stored scores in the order of their stories (the parts keep it),
    then any other (a category whose every cell is n/a) by name."""
    seen: dict[str, None] = {}
    for s in scores:
        for part in s.parts:
            seen.setdefault(part[0], None)
    rest = sorted({name for s in scores for name in s.category_scores} - seen.keys())
    return [*seen, *rest]


def _known_key(key: str, scores: list[StoredRow]) -> str:
    """``key`` when the leaderboard can rank by it, else ``RANK_PA`` (as ``arena_leaderboard``)."""
    kind, name = rank_key_split(key)
    if name is None and kind in (RANK_PA, RANK_VERIFIED, RANK_INTEGRITY):
        return key
    if kind == RANK_CATEGORY and any(name in s.category_scores for s in scores):
        return key
    if kind == RANK_PERSONA and any(name in s.persona_scores for s in scores):
        return key
    return RANK_PA


def arena_product_ranking(
    *, arena: Arena, key: str = RANK_PA
) -> tuple[list[Product], list[scoring.ProductKey]]:
    """The products on the pages in column order, and the keys of those with stored scores in the
    order of the rank key (as ``arena_leaderboard`` orders them): one query."""
    products = list(
        Product.objects.filter(arena=arena).select_related("score").order_by("position")
    )
    # (a product without stored scores has no ``score``: the reverse one-to-one raises)
    scores = [_stored_row(p.score, p) for p in products if hasattr(p, "score")]
    ordered = scoring.order_by([s.result for s in scores], _known_key(key, scores))
    return products, [r.product for r in ordered]
