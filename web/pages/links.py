"""The links the pages write: URL prefixes reversed once per table, not per link, and query strings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.urls import reverse
from django.utils.http import urlencode

from arena.selectors.matrix import MatrixFilters
from web.params import query_string


def url_prefix(name: str, *args: str) -> str:
    """The URL of ``name`` with ``args``, one argument to append: ``url_prefix("cell-detail")``."""
    return reverse(name, args=[*args, "0"])[: -len("0/")]


def cells_prefix() -> str:
    return url_prefix("cell-detail")


def arena_params(
    filters: MatrixFilters, *, show: Iterable[str] = (), fold: Iterable[str] = ()
) -> dict[str, str]:
    written = filters.as_params()
    if show := ",".join(show):
        written["show"] = show
    if fold := ",".join(fold):
        written["fold"] = fold
    return written


def arena_query(
    filters: MatrixFilters,
    *,
    show: Iterable[str] = (),
    fold: Iterable[str] = (),
    weights: str = "",
    rank: str = "",
) -> str:
    written = arena_params(filters, show=show, fold=fold)
    if weights:
        written["weights"] = weights
    query = query_string(written)
    if rank:  # (written as the rank menu's form sends it)
        query += f"{'&' if query else '?'}{urlencode({'rank': rank})}"
    return query


def compare_query(products: Iterable[str], *, diff: bool) -> str:
    return f"?products={','.join(products)}{'&diff=1' if diff else ''}"


def must_have_query(
    *, stories: Iterable[int] = (), needs: Iterable[str] = (), weights: str = ""
) -> str:
    """Stories ascending, facts in ``NEEDS``' order."""
    pairs = [
        ("must", ",".join(str(int(s)) for s in sorted(set(stories)))),
        ("need", ",".join(needs)),
        ("weights", weights),
    ]
    return query_string([(name, value) for name, value in pairs if value])


def matrix_category_urls(arena: str, kept: Mapping[str, str], category: str) -> tuple[str, ...]:
    """A matrix category's links, keeping the query (``kept``): folded, its rows alone (htmx),
    and without JavaScript a folded one's page with it open again (else its rows' link)."""
    page = f"{url_prefix('arena-detail')}{arena}/"
    prefix = f"{page}?{urlencode(kept)}&" if kept else f"{page}?"
    rows = f"{prefix}{urlencode({'category': category})}"
    folded = [f for f in kept.get("fold", "").split(",") if f]
    opened = rows
    if category in folded:
        rest = {**kept, "fold": ",".join(f for f in folded if f != category)}
        unfolded = urlencode({k: v for k, v in rest.items() if v})
        opened = f"{page}{'?' if unfolded else ''}{unfolded}"
    return f"{prefix}{urlencode({'fold': category})}", rows, opened


def neighbour_pages(page: int, pages: int) -> list[tuple[str, str]]:
    """The pages before and after ``page``: each one's ``&page=N`` (none for the first) and word."""
    around = ((page - 1, "Previous"), (page + 1, "Next"))
    return [("" if n == 1 else f"&page={n}", word) for n, word in around if 1 <= n <= pages]
