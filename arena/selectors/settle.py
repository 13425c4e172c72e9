"""What would settle a close call, as the pages show it: a head-to-head's pair too close to call
with the unverified cells whose verification would separate them (``pair_settle_get``), and the
arena's verification queue, its unverified cells ranked by how many close calls they help settle
(``verify_queue_get``). Both read the close calls the recompute stored (``Arena.close_calls``,
``scoring.close_calls``): nothing is computed per request. Read only; one query each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.models import Arena
from products.models import Product
from stories.models import Cell
from stories.values import EVIDENCED, Proof

# The proofs of an unverified cell (``scoring.UNVERIFIED_PROOF``), as a database filter.
_UNVERIFIED = (Proof.CLAIMED, Proof.AUTH_GATED)


@dataclass(frozen=True)
class ClosePair:
    """A stored close call between two of the arena's products: ``leader`` is ahead on its
    published score (or shown first on equal scores), ``settle`` the cells' ids."""

    leader: Product
    trailer: Product
    settle: tuple[int, ...]
    exact: bool


def _close_pairs(arena: Arena, products: Sequence[Product]) -> list[ClosePair]:
    by_id = {p.pk: p for p in products}
    out = []
    for call in arena.close_calls or []:
        a, b = by_id.get(call.get("a")), by_id.get(call.get("b"))
        if a is not None and b is not None:
            settle = tuple(int(c) for c in call.get("settle", []))
            out.append(ClosePair(a, b, settle, bool(call.get("exact", True))))
    return out


def _cells(arena: Arena, ids: Sequence[int] | None = None) -> list[Cell]:
    """The arena's unverified cells on the pages (or those of ``ids`` among them), with their
    story and product: one query."""
    cells = (
        Cell.objects.on_pages()
        .filter(story__arena_id=arena.pk, verdict__in=EVIDENCED, proof__in=_UNVERIFIED)
        .select_related("story", "product")
        .order_by("story__position", "product__position")
    )
    if ids is not None:
        cells = cells.filter(pk__in=ids)
    return list(cells)


@dataclass(frozen=True)
class PairSettle:
    """A head-to-head's pair too close to call, and the cells whose verification would settle it
    (in the order the close call names them: the leader's first, the largest gain first)."""

    pair: ClosePair
    cells: list[Cell]


def pair_settle_get(
    *, arena: Arena, a: Product, b: Product, products: Sequence[Product]
) -> PairSettle | None:
    """The close call between ``a`` and ``b`` with its settle set's cells; None when the pair is
    not too close to call (or the scores are not computed yet). One query when it is close."""
    pair = next(
        (p for p in _close_pairs(arena, products) if {p.leader.pk, p.trailer.pk} == {a.pk, b.pk}),
        None,
    )
    if pair is None:
        return None
    found = {c.pk: c for c in _cells(arena, pair.settle)} if pair.settle else {}
    return PairSettle(pair, [found[pk] for pk in pair.settle if pk in found])


@dataclass
class QueueItem:
    """One unverified cell of the verification queue, with the close calls it helps settle."""

    cell: Cell
    pairs: list[ClosePair] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.pairs)


@dataclass(frozen=True)
class VerifyQueue:
    items: list[QueueItem]
    close: list[ClosePair]  # every close call of the arena

    @property
    def settling(self) -> list[QueueItem]:
        """The cells that help settle at least one close call."""
        return [i for i in self.items if i.count]


def queue_order(item: QueueItem) -> tuple[Any, ...]:
    """Most close calls helped first; then the heavier story; then matrix order."""
    c = item.cell
    return (-item.count, -c.story.weight, c.story.position, c.product.position)


def verify_queue_get(*, arena: Arena, products: Sequence[Product]) -> VerifyQueue:
    """The arena's unverified cells on the pages, ranked by how many stored close calls name them
    in their settle sets (``queue_order``). One query."""
    close = _close_pairs(arena, products)
    items = [QueueItem(c) for c in _cells(arena)]
    by_id = {i.cell.pk: i for i in items}
    for pair in close:
        for pk in pair.settle:
            if (item := by_id.get(pk)) is not None:
                item.pairs.append(pair)
    return VerifyQueue(sorted(items, key=queue_order), close)
