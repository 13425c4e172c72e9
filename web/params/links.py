"""The query strings the pages write: their links, pushed addresses and redirects, and the page
cache's canonical query (``query_string``). What each parameter means is ``web.params``."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from urllib import parse
from urllib.parse import quote

from django.utils.http import urlencode

from arena.selectors.matrix import MatrixFilters
from web.params import (
    CATEGORY,
    DIFF,
    DISPUTE_PRODUCT,
    DISPUTE_STATE,
    DISPUTE_STORY,
    FOLD,
    FORM,
    MUST,
    NEED,
    OPEN,
    PAGE,
    PAGE_FORM,
    PERSONA,
    PRODUCTS,
    RANK,
    SENT,
    SHOW,
    STALE,
    WEIGHT_FIELD,
    WEIGHTS,
)


def query_string(pairs: Mapping[str, str] | Sequence[tuple[str, str]]) -> str:
    """``?a=1&b=2`` (``""`` for none), ``:`` and ``,`` left as they are, so that
    ``?weights=privacy-posture:3,agenticness:0`` and ``?products=a,b`` read as written."""
    written = parse.urlencode(pairs, safe=":,")
    return f"?{written}" if written else ""


def weights_write(levels: Iterable[tuple[str, int]]) -> str:
    """A ``?weights=`` value: ``key:level`` separated by commas."""
    return ",".join(f"{key}:{level}" for key, level in levels)


def weight_field(key: str) -> str:
    """The name of the weights panel's field for a key (``w-<key>``)."""
    return f"{WEIGHT_FIELD}{key}"


def arena_params(
    filters: MatrixFilters, *, show: Iterable[str] = (), fold: Iterable[str] = ()
) -> dict[str, str]:
    """The arena page's parameters for these settings, in their canonical order: the matrix
    filters, the products picked, the folded categories."""
    written = filters.as_params()
    if show := ",".join(show):
        written[SHOW.name] = show
    if fold := ",".join(fold):
        written[FOLD.name] = fold
    return written


def arena_query(
    filters: MatrixFilters,
    *,
    show: Iterable[str] = (),
    fold: Iterable[str] = (),
    weights: str = "",
    rank: str = "",
) -> str:
    """The arena page's query string, ``""`` when there is nothing to say: ``arena_params``, then
    the weights (their canonical form), then the rank."""
    written = arena_params(filters, show=show, fold=fold)
    if weights:
        written[WEIGHTS.name] = weights
    query = query_string(written)
    if rank:  # (written as the rank menu's form sends it)
        query += f"{'&' if query else '?'}{urlencode({RANK.name: rank})}"
    return query


def matrix_category_params(
    filters: MatrixFilters, *, rank: str, picked: str, fold: Iterable[str], weights: str
) -> dict[str, str]:
    """What a collapsed category's link in the matrix carries besides the category: the other
    filters, the rank, the products picked (``picked``, when not the default ones), the folded
    categories (unless one category is shown), the weights."""
    written = {k: v for k, v in filters.as_params().items() if k != CATEGORY.name}
    if rank:
        written[RANK.name] = rank
    if picked:
        written[SHOW.name] = picked
    if (fold := ",".join(fold)) and not filters.category:
        written[FOLD.name] = fold
    if weights:
        written[WEIGHTS.name] = weights
    return written


def head_to_head_query(*, diff: bool, open_all: bool) -> str:
    """The query string of a head-to-head's view (``?diff=1&open=all``), or ``""``."""
    written = {DIFF.name: "1"} if diff else {}
    if open_all:
        written[OPEN.name] = "all"
    return query_string(written)


def compare_query(products: Iterable[str], *, diff: bool) -> str:
    """A comparison's query string: ``?products=a,b,c`` (slugs need no escaping), ``&diff=1``."""
    return f"?{PRODUCTS.name}={','.join(products)}{f'&{DIFF.name}=1' if diff else ''}"


def must_have_query(
    *, stories: Iterable[int] = (), needs: Iterable[str] = (), weights: str = ""
) -> str:
    """The must-have check's query string in its canonical spelling (the stories in ascending
    order, the facts in the order given, which is ``NEEDS``'), ``""`` for no choice:
    ``?must=3,12&need=self-hosted&weights=…``."""
    pairs = [
        (MUST.name, ",".join(str(int(s)) for s in sorted(set(stories)))),
        (NEED.name, ",".join(needs)),
        (WEIGHTS.name, weights),
    ]
    return query_string([(name, value) for name, value in pairs if value])


def flag_form_query(form_id: str) -> str:
    """Where a flag form instance posts to (the form page's own instance: no query)."""
    return "" if form_id == PAGE_FORM else f"?{FORM.name}={form_id}"


def flag_sent_query() -> str:
    """The status page's address right after the flag was sent (it says so)."""
    return f"?{SENT.name}=1"


def _value(value: str) -> str:
    """A value in a link the builders write: percent-escaped, ``/`` left as it is."""
    return quote(value, safe="/")


def persona_query(persona: str) -> str:
    """The arena page's matrix showing one persona's stories: ``?persona=<slug>``."""
    return f"?{PERSONA.name}={_value(persona)}"


def category_query(category: str) -> str:
    """The arena page's matrix showing one category's stories: ``?category=<slug>``."""
    return f"?{CATEGORY.name}={category}"


def stale_query(product: str) -> str:
    """The arena page's matrix showing a product's stale cells: ``?stale=1&show=<product>``."""
    return f"?{STALE.name}=1&{SHOW.name}={_value(product)}"


def filters_cleared_query(*, rank: str, show: str) -> str:
    """The arena page without its matrix filters, the ranking and the products shown kept:
    ``?rank=<rank>&show=<slugs>``, ``""`` when neither is set."""
    kept = {RANK.name: rank, SHOW.name: show}
    query = "&".join(f"{name}={_value(value)}" for name, value in kept.items() if value)
    return f"?{query}" if query else ""


def page_query(number: int) -> str:
    """Another page of a paginated list: ``?page=<number>``."""
    return f"?{PAGE.name}={int(number)}"


def disputes_query(
    *, product: str = "", story: int | None = None, state: str = "", page: int = 1
) -> str:
    """An arena's disputes narrowed to a product, a story, a state, on a page (the defaults left
    out): ``?product=<slug>&story=<n>&state=<state>&page=<n>``, ``""`` for all of them."""
    pairs = [
        (DISPUTE_PRODUCT.name, product),
        (DISPUTE_STORY.name, str(int(story)) if story else ""),
        (DISPUTE_STATE.name, state),
        (PAGE.name, str(int(page)) if page > 1 else ""),
    ]
    return query_string([(name, value) for name, value in pairs if value])


def round_open_query(story: int) -> str:
    """A head-to-head with one round's rationale and evidence open: ``?open=<story>``."""
    return f"?{OPEN.name}={int(story)}"


def weights_hx_vals(weights: str) -> str:
    """What a weights link sends with htmx (``hx-vals``): ``{"weights": "<weights>"}``."""
    # (the reset sends an empty list, ``,``: an empty value would be left out of the request)
    return json.dumps({WEIGHTS.name: weights or ","})


def param_prefix(query: Mapping[str, str]) -> str:
    """``query`` as a query string ready for one more parameter (``?a=1&``; ``?`` for an empty
    one), which ``one_param`` writes after it: ``?a=1&fold=x``. The last ``fold`` wins, so a link
    can fold one more category of a page that has some folded. A table encodes its query once
    and adds a parameter per link."""
    kept = urlencode(query)
    return f"?{kept}&" if kept else "?"


@functools.lru_cache(maxsize=1024)
def one_param(param: str, value: str) -> str:
    """``param=value``, to follow ``param_prefix`` (encoded as ``urlencode`` encodes it). Kept
    per value: a page's category links encode the same few category slugs on every render."""
    return f"{parse.quote_plus(param)}={parse.quote_plus(value)}"


def fold_param_removed(query: Mapping[str, str], category: str) -> str | None:
    """``query`` with ``category`` taken out of its folded categories, as a query string (``""``
    for none left); None when ``category`` is not folded."""
    folded = [f for f in query.get(FOLD.name, "").split(",") if f]
    if category not in folded:
        return None
    rest = {**query, FOLD.name: ",".join(f for f in folded if f != category)}
    kept = urlencode({k: v for k, v in rest.items() if v})
    return f"?{kept}" if kept else ""
