"""What would settle the close calls the recompute stored: a pair's unverified cells, and the
verification queue ranked by how many close calls list each cell. Three queries each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Q, QuerySet

from arena.models import Arena, CloseCall, SettleCell
from arena.scoring.results import UNVERIFIED_PROOF
from products.models import Product
from stories.models import Cell
from stories.values import EVIDENCED


@dataclass(frozen=True)
class ClosePair:
    leader: Product  # ahead on its published score (or shown first on equal scores)
    trailer: Product
    settle: tuple[int, ...]  # the listed cells' ids (the first ``SETTLE_LISTED``)
    count: int  # cells in the whole settle set: 0 when no verification settles it
    exact: bool  # False: at most ``count`` (the greedy bound)

    @property
    def more(self) -> int:
        """The settle set's cells beyond those listed."""
        return self.count - len(self.settle)


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


def _close_pairs(
    arena: Arena, products: Sequence[Product], match: Q | None = None
) -> list[ClosePair]:
    by_id = {p.pk: p for p in products}
    matching = CloseCall.objects.filter(match or Q(), arena_id=arena.pk)
    calls = list(matching.order_by("position"))
    listed: dict[int, list[int]] = {c.pk: [] for c in calls}
    cells = SettleCell.objects.filter(call__in=matching.values("pk")).order_by("position")
    for call_id, cell_id in cells.values_list("call_id", "cell_id"):
        listed[call_id].append(cell_id)
    return [
        ClosePair(a, b, tuple(listed[c.pk]), c.settle_count, c.exact)
        for c in calls
        if (a := by_id.get(c.leader_id)) is not None and (b := by_id.get(c.trailer_id)) is not None
    ]


def _unverified(arena: Arena) -> QuerySet[Cell]:
    """The arena's unverified cells on the pages, in matrix order."""
    cells = Cell.objects.on_pages().filter(
        story__arena_id=arena.pk,
        verdict__in=EVIDENCED,
        proof__in=UNVERIFIED_PROOF,
    )
    return cells.select_related("story", "product").order_by("story__position", "product__position")


def pair_settle_get(*, arena: Arena, a: Product, b: Product) -> PairSettle | None:
    """The close call between ``a`` and ``b`` with its listed cells; None when not close."""
    either = Q(leader=a, trailer=b) | Q(leader=b, trailer=a)
    call = CloseCall.objects.filter(either, arena_id=arena.pk).first()
    if call is None:
        return None
    found = (
        _unverified(arena).filter(settles__call=call) if call.settle_count else Cell.objects.none()
    )
    cells = list(found.order_by("settles__position"))
    lead, trail = (a, b) if call.leader_id == a.pk else (b, a)
    pair = ClosePair(lead, trail, tuple(c.pk for c in cells), call.settle_count, call.exact)
    return PairSettle(pair, cells)


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
