"""The comparison of two to six products (``arena/compare.html`` draws it): its score table and
its rounds under their categories (each product's cell, the best marked), and its pickers."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena import scoring
from arena.selectors.cells import CellLine
from arena.selectors.compare import ManyComparison, ManyRow
from arena.selectors.matrix import CategoryBlock
from products.models import Product
from web.pages import links
from web.pages.shapes import slug_of


def compare_url(arena: str, products: Iterable[object]) -> str:
    """The comparison of ``products`` (products, or leaderboard rows with ``.product``) in that
    order (see ``links.compare_url``)."""
    return links.compare_url(arena, (slug_of(getattr(p, "product", p)) for p in products))


def _top(values: Sequence[int | None]) -> int | None:
    """The highest of some scores (None when there is none, or when they are all equal)."""
    known = [v for v in values if v is not None]
    if len(set(known)) < 2:
        return None
    return max(known)


def _marked(values: Sequence[int | None]) -> list[tuple[int | None, bool]]:
    """A row of the score table: each value and whether it is the highest."""
    top = _top(values)
    return [(v, v is not None and v == top) for v in values]


@dataclass(frozen=True)
class ScoreTable:
    """The comparison's score table as the template draws it (rows of (value, highest))."""

    pa: list[tuple[int | None, tuple[int, int] | None, bool]]  # score, range, whether it leads
    weighted: list[tuple[int | None, bool]]
    categories: list[tuple[str, list[tuple[int | None, bool]]]]


def compare_scores(cmp: ManyComparison) -> ScoreTable:
    """The stored PA Score with its range ("▲ leads" only on the product that leads every other
    one by the one rule, ``scoring.pair_call``, not on the highest score), the weights of the
    rounds each is best in, then each category's stored score, the highest of a row marked."""
    standings = list(cmp.standings.values())
    pa = []
    for p, s in cmp.standings.items():
        r = s.ranged
        rng = (r.low, r.high) if r and r.low is not None and r.high is not None else None
        pa.append((s.pa_score, rng, cmp.leader is not None and p == cmp.leader))
    return ScoreTable(
        pa=pa,
        weighted=_marked([s.weighted for s in standings]),
        categories=[
            (name, _marked([s.category_scores.get(name) for s in standings]))
            for name in cmp.categories
        ],
    )


@dataclass(frozen=True)
class Round:
    """One round: its row and each product's cell in column order (None: no verdict) with
    whether it is the best."""

    row: ManyRow
    cells: list[tuple[CellLine | None, bool]]


def _round(row: ManyRow, products: Sequence[Product]) -> Round:
    by = {c.product_id: c for c in row.cells}
    best = {p.pk for p in row.best}
    return Round(row, [(by.get(p.pk), p.pk in best) for p in products])


def compare_rounds(
    cmp: ManyComparison,
) -> list[tuple[CategoryBlock, list[tuple[Any, list[Round]]]]]:
    """Every category shown (``cmp.blocks``) with its sub-groups, each with its rounds."""
    return [
        (
            block,
            [
                (group.subgroup, [_round(row, cmp.products) for row in group.rows])
                for group in block.groups
            ],
        )
        for block in cmp.blocks
    ]


def compare_names(cmp: ManyComparison) -> dict[scoring.ProductKey, str]:
    """The compared products' names by key (a category's tally names them)."""
    return {p.pk: p.name for p in cmp.products}


def picked_first(
    products: Iterable[Product], picked: Sequence[Product]
) -> list[tuple[Product, bool]]:
    """The comparison's product picker's order: the ``picked`` products (in their order, ticked)
    first, then the others, so that the form sends them in the order they are shown."""
    chosen = {p.pk for p in picked}
    return [(p, True) for p in picked] + [(p, False) for p in products if p.pk not in chosen]


def pairs(products: Sequence[Product]) -> list[tuple[Product, Product]]:
    """Every pair of the compared products, in column order (their head-to-heads' links)."""
    return list(itertools.combinations(products, 2))
