"""The open disputes of a product where the arena's pages name it (the leaderboard's row, the
matrix's column head, each side of a head-to-head): a count linking to the arena's disputes page
narrowed to that product's open ones. The counts are read once per page
(``arena.selectors.arena_open_dispute_counts``)."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.safestring import SafeString, mark_safe

from products.models import Product
from web.pages import links
from web.pages.markup import esc

OPEN = "open"  # the disputes page's state of a pending dispute


def open_disputes_html(arena: str, product: Product, counts: Mapping[int, int] | None) -> str:
    """`` ⚑ 2`` linking to the product's open disputes, its words (naming the product) for
    screen readers and on hover; "" when it has none."""
    n = int((counts or {}).get(product.pk, 0))
    if not n:
        return ""
    words = f"{n} open dispute{'' if n == 1 else 's'}"
    url = esc(links.disputes_url(arena, product=product.slug, state=OPEN))
    return (
        f' <a class="open-disputes" href="{url}" title="{words}: flags under review">'
        f'<span aria-hidden="true">⚑{n}</span><span class="visually-hidden">{words} on'
        f" {esc(product.name)}</span></a>"
    )


def open_disputes(
    arena: str, product: Product, counts: Mapping[int, int] | None, none: str = ""
) -> SafeString:
    """``open_disputes_html`` for a template, or ``none`` (escaped) when it has none."""
    return mark_safe(open_disputes_html(arena, product, counts) or esc(none))
