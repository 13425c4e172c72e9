"""The links the pages write: addresses reversed once per script prefix, not per link (a matrix
has thousands), and their query strings."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from urllib.parse import quote_plus

from django.urls import get_script_prefix, reverse
from django.utils.http import urlencode

from arena.selectors.matrix import MatrixFilters
from web.params import query_string


@functools.lru_cache(maxsize=256)
def _url_prefix(script_prefix: str, name: str, *args: str) -> str:
    return reverse(name, args=[*args, "0"])[: -len("0/")]


def url_prefix(name: str, *args: str) -> str:
    """The URL of ``name`` with ``args`` and one last argument still to append:
    ``url_prefix("cell-detail")`` is ``/cells/``."""
    return _url_prefix(get_script_prefix(), name, *args)


@functools.lru_cache(maxsize=64)
def _site_url(script_prefix: str, name: str) -> str:
    return reverse(name)


def site_url(name: str) -> str:
    """The address of the view ``name`` that takes no argument (``/``, ``/search/``)."""
    return _site_url(get_script_prefix(), name)


def cells_prefix() -> str:
    """``/cells/``: a cell's proof page is ``<prefix><pk>/``, its flag page ``<prefix><pk>/flag/``."""
    return url_prefix("cell-detail")


def arenas_prefix() -> str:
    return url_prefix("arena-detail")


def head_to_head_prefix(arena: str) -> str:
    """``/arenas/<arena>/vs/``: a pair's page is ``<prefix><a>-vs-<b>/``."""
    # ``…/vs/0-vs-0/`` reversed once; the pair's two slugs take the place of the zeros
    return url_prefix("head-to-head", arena, "0")[: -len("0-vs-")]


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


def head_to_head_query(*, diff: bool, open_all: bool) -> str:
    written = {"diff": "1"} if diff else {}
    if open_all:
        written["open"] = "all"
    return query_string(written)


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


def disputes_query(
    *, product: str = "", story: int | None = None, state: str = "", page: int = 1
) -> str:
    pairs = [
        ("product", product),
        ("story", str(int(story)) if story else ""),
        ("state", state),
        ("page", str(int(page)) if page > 1 else ""),
    ]
    return query_string([(name, value) for name, value in pairs if value])


def weights_hx_vals(weights: str) -> str:
    # the reset sends an empty list, ``,``: an empty value would be left out of the request
    return json.dumps({"weights": weights or ","})


# The arena page's own links ({% url %} costs a reverse each, some 25 µs, on every render): the
# names of the views that take the arena's slug, and of those that take nothing.
_ARENA_VIEWS = (
    "arena-compare",
    "arena-disputes",
    "arena-disputes-json",
    "arena-verify",
    "arena-export-json",
    "arena-export-csv",
    "arena-changes-feed",
    "arena-markdown",
    "arena-must-have",
)
_SITE_VIEWS = ("home", "methodology", "arena-file-schema", "llms-txt")


@functools.lru_cache(maxsize=256)
def _arena_page_urls(script_prefix: str, arena: str) -> Mapping[str, str]:
    urls = {name.replace("-", "_"): reverse(name, args=[arena]) for name in _ARENA_VIEWS}
    urls.update({name.replace("-", "_"): reverse(name) for name in _SITE_VIEWS})
    return urls


def arena_page_urls(arena: str) -> Mapping[str, str]:
    """The addresses the arena page links, by view name with ``_`` for ``-`` (``arena_disputes``)."""
    return _arena_page_urls(get_script_prefix(), arena)


@functools.lru_cache(maxsize=1024)
def _one_param(param: str, value: str) -> str:
    return f"{quote_plus(param)}={quote_plus(value)}"


def matrix_category_urls(arena: str, kept: Mapping[str, str], category: str) -> tuple[str, ...]:
    """A matrix category's links, each keeping the page's query (``kept``): the page with it
    folded, with its rows alone (what htmx loads) and, without JavaScript, a folded one's page
    with it open again (else its rows' link)."""
    page = f"{arenas_prefix()}{arena}/"
    prefix = f"{page}?{urlencode(kept)}&" if kept else f"{page}?"
    rows = f"{prefix}{_one_param('category', category)}"
    folded = [f for f in kept.get("fold", "").split(",") if f]
    opened = rows
    if category in folded:
        rest = {**kept, "fold": ",".join(f for f in folded if f != category)}
        unfolded = urlencode({k: v for k, v in rest.items() if v})
        opened = f"{page}{'?' if unfolded else ''}{unfolded}"
    return f"{prefix}{_one_param('fold', category)}", rows, opened
