"""What would settle the close calls the recompute stored: a pair's unverified cells, and the
verification queue ranked by how many close calls each cell helps settle. One query each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import QuerySet

from arena.models import Arena
from arena.scoring.results import UNVERIFIED_PROOF
from products.models import Product
from stories.models import Cell
from stories.values import EVIDENCED


@dataclass(frozen=True)
class ClosePair:
    leader: Product  # ahead on its published score (or shown first on equal scores)
    trailer: Product
    settle: tuple[int, ...]  # the cells' ids
    exact: bool


@dataclass(frozen=True)
class PairSettle:
    pair: ClosePair
    cells: list[Cell]  # in the close call's order: the leader's first, the largest gain first


@dataclass
class QueueItem:
    cell: Cell
    pairs: list[ClosePair] = field(default_factory=list)  # the close calls it helps settle

    @property
    def count(self) -> int:
        return len(self.pairs)


@dataclass(frozen=True)
class VerifyQueue:
    items: list[QueueItem]
    close: list[ClosePair]  # every close call of the arena

    @property
    def settling(self) -> list[QueueItem]:
        return [i for i in self.items if i.count]


def _close_pairs(arena: Arena, products: Sequence[Product]) -> list[ClosePair]:
    by_id = {p.pk: p for p in products}
    return [
        ClosePair(
            a, b, tuple(int(c) for c in call.get("settle", [])), bool(call.get("exact", True))
        )
        for call in arena.close_calls or []
        if (a := by_id.get(call.get("a"))) is not None
        and (b := by_id.get(call.get("b"))) is not None
    ]


def _unverified(arena: Arena) -> QuerySet[Cell]:
    """The arena's unverified cells on the pages, in matrix order."""
    cells = Cell.objects.on_pages().filter(
        story__arena_id=arena.pk,
        verdict__in=EVIDENCED,
        proof__in=UNVERIFIED_PROOF,
    )
    return cells.select_related("story", "product").order_by("story__position", "product__position")


def pair_settle_get(
    *, arena: Arena, a: Product, b: Product, products: Sequence[Product]
) -> PairSettle | None:
    """The close call between ``a`` and ``b`` with its settle set's cells; None when not close."""
    close = _close_pairs(arena, products)
    pair = next((p for p in close if {p.leader.pk, p.trailer.pk} == {a.pk, b.pk}), None)
    if pair is None:
        return None
    found = {c.pk: c for c in _unverified(arena).filter(pk__in=pair.settle)} if pair.settle else {}
    return PairSettle(pair, [found[pk] for pk in pair.settle if pk in found])


def verify_queue_get(*, arena: Arena, products: Sequence[Product]) -> VerifyQueue:
    """The unverified cells, those that help settle the most close calls first."""
    close = _close_pairs(arena, products)
    items = [QueueItem(c) for c in _unverified(arena)]
    by_id = {i.cell.pk: i for i in items}
    for pair in close:
        for pk in pair.settle:
            if (item := by_id.get(pk)) is not None:
                item.pairs.append(pair)
    items.sort(key=lambda i: (-i.count, -i.cell.story.weight))  # (stable: matrix order kept)
    return VerifyQueue(items, close)
