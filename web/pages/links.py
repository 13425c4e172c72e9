"""The links the pages write: addresses reversed once per script prefix, not per link (a matrix
has thousands), with the query strings of ``web.params.links``."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from django.urls import get_script_prefix, reverse

from core.text import arena_slugify
from web.params import CATEGORY, FOLD
from web.params import links as query

# Where the matrix is on the arena page: the links that change its settings land there.
MATRIX_SECTION = "#matrix-section"


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


def product_url(arena: str, product: str) -> str:
    """``{% url 'product-detail' arena product %}``, without a reverse per link."""
    return f"{url_prefix('product-detail', arena)}{product}/"


def head_to_head_url(arena: str, a: str, b: str, diff: bool = False) -> str:
    """``{% url 'head-to-head' arena a b %}``; with ``diff``, only the rounds that differ."""
    return f"{head_to_head_prefix(arena)}{a}-vs-{b}/{query.head_to_head_query(diff=diff, open_all=False)}"


def disputes_url(arena: str, product: str = "", story: int | None = None, state: str = "") -> str:
    """An arena's disputes page, narrowed to a product, a story or a state."""
    page = f"{arenas_prefix()}{arena}/disputes/"
    return f"{page}{query.disputes_query(product=product, story=story, state=state)}"


def compare_url(arena: str, slugs: Iterable[str]) -> str:
    """``/arenas/<arena>/compare/?products=a,b,c``."""
    return f"{arenas_prefix()}{arena}/compare/{query.compare_query(slugs, diff=False)}"


def compare_picker_url(arena: str, a: str, b: str) -> str:
    """The comparison of a head-to-head's pair, at its picker (to add a product)."""
    return f"{compare_url(arena, (a, b))}#compare-picker"


def category_stories_url(arena: str, category: str) -> str:
    """The arena page's matrix showing one category's stories (``category``: its name)."""
    return (
        f"{arenas_prefix()}{arena}/{query.category_query(arena_slugify(category))}{MATRIX_SECTION}"
    )


def stale_stories_url(arena: str, product: str) -> str:
    """The arena page's matrix showing a product's stale cells."""
    return f"{arenas_prefix()}{arena}/{query.stale_query(product)}{MATRIX_SECTION}"


def clear_filters_url(arena_url: str, rank: str, show: str) -> str:
    """The arena page's matrix without its filters, the ranking and the products shown kept."""
    return f"{arena_url}{query.filters_cleared_query(rank=rank, show=show)}{MATRIX_SECTION}"


def persona_stories_url(arena: str, persona: str) -> str:
    """The arena page's matrix showing one persona's stories."""
    return f"{arenas_prefix()}{arena}/{query.persona_query(persona)}{MATRIX_SECTION}"


# The arena page's own links ({% url %} costs a reverse each, some 25 µs, on every render): the
# names of the views that take the arena's slug, and of those that take nothing.
_ARENA_VIEWS = (
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


def matrix_category_urls(arena: str, kept: Mapping[str, str], category: str) -> tuple[str, ...]:
    """A matrix category's links, each keeping the page's query (``kept``): the page with it
    folded, with its rows alone (what htmx loads) and, without JavaScript, a folded one's page
    with it open again (else its rows' link)."""
    page = f"{arenas_prefix()}{arena}/"
    prefix = f"{page}{query.param_prefix(kept)}"
    rows = f"{prefix}{query.one_param(CATEGORY.name, category)}"
    unfolded = query.fold_param_removed(kept, category)
    opened = rows if unfolded is None else f"{page}{unfolded}"
    return f"{prefix}{query.one_param(FOLD.name, category)}", rows, opened
