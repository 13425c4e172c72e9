"""What settles the stored close calls: a pair's unverified cells, and the verification queue."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q, QuerySet

from arena.models import CALL_ORDER, Arena, CloseCall, SettleCell
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
    def more(self) -> int:  # the settle set's cells beyond those listed
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


QUEUE_PAGE = 200  # the cells a page of the verification queue lists


@dataclass(frozen=True)
class VerifyQueue:
    close: list[ClosePair]  # every close call of the arena, in leaderboard order
    page: Page  # the cells' page of the queue, for its number and the links to the others
    items: list[QueueItem]  # its cells: those the most close calls list first
    settling: int  # the unverified cells that help settle a close call, on every page


def _close_pairs(arena: Arena, products: Sequence[Product], listed: bool) -> dict[int, ClosePair]:
    """The arena's close calls by id, with their listed cells when ``listed``."""
    by_id = {p.pk: p for p in products}
    calls = CloseCall.objects.filter(arena_id=arena.pk)
    cells: dict[int, list[int]] = {}
    if listed:
        rows = SettleCell.objects.filter(call__in=calls.values("pk")).order_by("position")
        for call_id, cell_id in rows.values_list("call_id", "cell_id"):
            cells.setdefault(call_id, []).append(cell_id)
    return {
        c.pk: ClosePair(a, b, tuple(cells.get(c.pk, ())), c.settle_count, c.exact)
        for c in calls.order_by(*CALL_ORDER)
        if (a := by_id.get(c.leader_id)) is not None and (b := by_id.get(c.trailer_id)) is not None
    }


def _unverified(arena: Arena) -> QuerySet[Cell]:
    """The arena's unverified cells on the pages, in matrix order."""
    cells = Cell.objects.on_pages().filter(
        story__arena_id=arena.pk, verdict__in=EVIDENCED, proof__in=UNVERIFIED_PROOF
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


def verify_queue_get(
    *, arena: Arena, products: Sequence[Product], number: str | None, listed: bool = False
) -> VerifyQueue:
    """A page of unverified cells, most listed first; the close calls (cells too if ``listed``)."""
    close = _close_pairs(arena, products, listed)
    cells = _unverified(arena).annotate(helps=Count("settles"))
    ordered = cells.order_by("-helps", "-story__weight", "story__position", "product__position")
    page = Paginator(ordered, QUEUE_PAGE).get_page(number)
    items = [QueueItem(c) for c in page.object_list]
    by_cell = {i.cell.pk: i for i in items}
    rows = SettleCell.objects.filter(cell__in=list(by_cell))
    rows = rows.order_by(*(f"call__{f}" for f in CALL_ORDER))
    for cell_id, call_id in rows.values_list("cell_id", "call_id"):
        if (pair := close.get(call_id)) is not None:
            by_cell[cell_id].pairs.append(pair)
    return VerifyQueue(list(close.values()), page, items, cells.filter(helps__gt=0).count())
