"""Every link the builders write: the pages' addresses (reversed once per script prefix, not per
link: a matrix has thousands) and the query strings that carry a page's settings (``?persona=``,
``?products=``, ``?open=``, the matrix's ``?category=`` and ``?fold=``, htmx's ``weights``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import quote

from django.urls import get_script_prefix, reverse
from django.utils.http import urlencode

from arena.text import arena_slugify

# Where the matrix is on the arena page: the links that change its settings land there.
MATRIX_SECTION = "#matrix-section"


@functools.lru_cache(maxsize=256)
def _url_prefix(script_prefix: str, name: str, *args: str) -> str:
    """The URL of ``name`` with ``args`` and one last argument still to append (``/cells/``,
    ``/arenas/<slug>/stories/``): reversed once per script prefix and arguments."""
    return reverse(name, args=[*args, "0"])[: -len("0/")]


def url_prefix(name: str, *args: str) -> str:
    """See ``_url_prefix``: ``url_prefix("cell-detail")`` is ``/cells/``."""
    return _url_prefix(get_script_prefix(), name, *args)


def cells_prefix() -> str:
    """``/cells/``: a cell's proof page is ``<prefix><pk>/``, its flag page ``<prefix><pk>/flag/``."""
    return url_prefix("cell-detail")


def arenas_prefix() -> str:
    """``/arenas/``: an arena's page is ``<prefix><slug>/``."""
    return url_prefix("arena-detail")


def head_to_head_prefix(arena: str) -> str:
    """``/arenas/<arena>/vs/``: a pair's page is ``<prefix><a>-vs-<b>/``."""
    # ``…/vs/0-vs-0/`` reversed once; the pair's two slugs take the place of the zeros
    return url_prefix("head-to-head", arena, "0")[: -len("0-vs-")]


def product_url(arena: str, product: str) -> str:
    """``{% url 'product-detail' arena product %}`` (two slugs), without a reverse per link."""
    return f"{url_prefix('product-detail', arena)}{product}/"


def story_url(arena: str, story: int) -> str:
    """``{% url 'story-detail' arena story %}``, without a reverse per link."""
    return f"{url_prefix('story-detail', arena)}{int(story)}/"


def head_to_head_url(arena: str, a: str, b: str, diff: bool = False) -> str:
    """``{% url 'head-to-head' arena a b %}`` (three slugs), without a reverse per link; with
    ``diff``, only the rounds that differ (``?diff=1``)."""
    return f"{head_to_head_prefix(arena)}{a}-vs-{b}/{'?diff=1' if diff else ''}"


def compare_url(arena: str, slugs: Iterable[str]) -> str:
    """The comparison of the products of ``slugs`` in that order:
    ``/arenas/<arena>/compare/?products=a,b,c``."""
    return f"{arenas_prefix()}{arena}/compare/?products={','.join(slugs)}"


def compare_picker_url(arena: str, a: str, b: str) -> str:
    """The comparison of a head-to-head's pair, at its picker (to add a product)."""
    return f"{compare_url(arena, (a, b))}#compare-picker"


def category_stories_url(arena: str, category: str) -> str:
    """The arena page's matrix showing one category's stories (``category``: its name):
    ``/arenas/<arena>/?category=<slug>``."""
    return f"{arenas_prefix()}{arena}/?category={arena_slugify(category)}{MATRIX_SECTION}"


def stale_stories_url(arena: str, product: str) -> str:
    """The arena page's matrix showing a product's stale cells: ``?stale=1&show=<product>``."""
    return f"{arenas_prefix()}{arena}/?stale=1&show={quote(product, safe='/')}{MATRIX_SECTION}"


def clear_filters_url(arena_url: str, rank: str, show: str) -> str:
    """The arena page's matrix without its filters, the ranking and the products shown kept:
    ``<arena_url>?rank=<rank>&show=<slugs>``."""
    kept = {"rank": rank, "show": show}
    query = "&".join(f"{name}={quote(value, safe='/')}" for name, value in kept.items() if value)
    return f"{arena_url}{'?' if query else ''}{query}{MATRIX_SECTION}"


def page_url(number: int) -> str:
    """Another page of a paginated list, on the same address: ``?page=<number>``."""
    return f"?page={int(number)}"


def persona_stories_url(arena: str, persona: str) -> str:
    """The arena page's matrix showing one persona's stories: ``/arenas/<arena>/?persona=<slug>``."""
    return f"{arenas_prefix()}{arena}/?persona={quote(persona, safe='/')}{MATRIX_SECTION}"


def round_open_url(page: str, story: int) -> str:
    """A head-to-head with one round's rationale and evidence open: ``<page>?open=<story>``."""
    return f"{page}?open={int(story)}"


def weights_hx_vals(weights: str) -> str:
    """What a weights link sends with htmx (``hx-vals``): ``{"weights": "<weights>"}``."""
    # (the reset sends an empty list, ``,``: an empty value would be left out of the request)
    return json.dumps({"weights": weights or ","})


@dataclass(frozen=True)
class MatrixLinks:
    """The links of the matrix's categories, each keeping the page's ``query`` (filters, ranking,
    products shown, folded categories) besides what it sets."""

    arena: str
    query: Mapping[str, str]

    @functools.cached_property
    def _load(self) -> str:
        """The arena page's address with the query, ready for one more parameter."""
        query = self.query
        return f"{arenas_prefix()}{self.arena}/?{urlencode(query)}{'&' if query else ''}"

    def fold_url(self, category: str) -> str:
        """The page with ``category`` folded (``&fold=<slug>``)."""
        return f"{self._load}{urlencode({'fold': category})}"

    def category_url(self, category: str) -> str:
        """The page with ``category``'s rows (``&category=<slug>``: what htmx loads)."""
        return f"{self._load}{urlencode({'category': category})}"

    def unfold_url(self, category: str) -> str | None:
        """Without JavaScript, the page with folded ``category`` open again; None when it is not
        folded (its link shows it alone)."""
        folded = [f for f in self.query.get("fold", "").split(",") if f]
        if category not in folded:
            return None
        rest = {**self.query, "fold": ",".join(f for f in folded if f != category)}
        kept = urlencode({k: v for k, v in rest.items() if v})
        return f"{arenas_prefix()}{self.arena}/{'?' if kept else ''}{kept}"
