"""The open disputes of a product where the arena's pages name it (the leaderboard's row, the
matrix's column head, each side of a head-to-head): a count linking to the arena's disputes page
narrowed to that product's open ones (``arena/_open_disputes.html``). The counts are read once
per page (``flags.disputes.arena_open_dispute_counts``)."""

from __future__ import annotations

from collections.abc import Mapping

from products.models import Product
from web.pages import links

OPEN = "open"  # the disputes page's state of a pending dispute


def open_disputes(
    arena: str, product: Product, counts: Mapping[int, int] | None, none: str = ""
) -> dict[str, object]:
    """What ``arena/_open_disputes.html`` draws: the product's open disputes, their words and
    address; ``none`` when it has none."""
    n = int((counts or {}).get(product.pk, 0))
    return {
        "count": n,
        "words": f"{n} open dispute{'' if n == 1 else 's'}",
        "url": links.disputes_url(arena, product=product.slug, state=OPEN) if n else "",
        "product": product,
        "none": none,
    }
