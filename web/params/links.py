"""The query strings the pages write, and the page cache's canonical query."""

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
    """``?a=1&b=2`` or ``""``; ``:`` and ``,`` unescaped, so ``?weights=a:3,b:0`` reads as written."""
    written = parse.urlencode(pairs, safe=":,")
    return f"?{written}" if written else ""


def weights_write(levels: Iterable[tuple[str, int]]) -> str:
    return ",".join(f"{key}:{level}" for key, level in levels)


def weight_field(key: str) -> str:
    return f"{WEIGHT_FIELD}{key}"


def arena_params(
    filters: MatrixFilters, *, show: Iterable[str] = (), fold: Iterable[str] = ()
) -> dict[str, str]:
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
    """A collapsed category's link's query but the category (folds only when none is shown)."""
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
    written = {DIFF.name: "1"} if diff else {}
    if open_all:
        written[OPEN.name] = "all"
    return query_string(written)


def compare_query(products: Iterable[str], *, diff: bool) -> str:
    return f"?{PRODUCTS.name}={','.join(products)}{f'&{DIFF.name}=1' if diff else ''}"


def must_have_query(
    *, stories: Iterable[int] = (), needs: Iterable[str] = (), weights: str = ""
) -> str:
    """Stories ascending, facts in ``NEEDS``' order."""
    pairs = [
        (MUST.name, ",".join(str(int(s)) for s in sorted(set(stories)))),
        (NEED.name, ",".join(needs)),
        (WEIGHTS.name, weights),
    ]
    return query_string([(name, value) for name, value in pairs if value])


def flag_form_query(form_id: str) -> str:
    return "" if form_id == PAGE_FORM else f"?{FORM.name}={form_id}"


def flag_sent_query() -> str:
    return f"?{SENT.name}=1"


def _value(value: str) -> str:
    return quote(value, safe="/")


def persona_query(persona: str) -> str:
    return f"?{PERSONA.name}={_value(persona)}"


def category_query(category: str) -> str:
    return f"?{CATEGORY.name}={category}"


def stale_query(product: str) -> str:
    return f"?{STALE.name}=1&{SHOW.name}={_value(product)}"


def filters_cleared_query(*, rank: str, show: str) -> str:
    """The arena page without its matrix filters, keeping the rank and the products shown."""
    kept = {RANK.name: rank, SHOW.name: show}
    query = "&".join(f"{name}={_value(value)}" for name, value in kept.items() if value)
    return f"?{query}" if query else ""


def page_query(number: int) -> str:
    return f"?{PAGE.name}={int(number)}"


def disputes_query(
    *, product: str = "", story: int | None = None, state: str = "", page: int = 1
) -> str:
    pairs = [
        (DISPUTE_PRODUCT.name, product),
        (DISPUTE_STORY.name, str(int(story)) if story else ""),
        (DISPUTE_STATE.name, state),
        (PAGE.name, str(int(page)) if page > 1 else ""),
    ]
    return query_string([(name, value) for name, value in pairs if value])


def round_open_query(story: int) -> str:
    return f"?{OPEN.name}={int(story)}"


def weights_hx_vals(weights: str) -> str:
    # the reset sends an empty list, ``,``: an empty value would be left out of the request
    return json.dumps({WEIGHTS.name: weights or ","})


def param_prefix(query: Mapping[str, str]) -> str:
    """``?a=1&`` (``?`` for none): a table encodes its query once, then ``one_param`` per link."""
    kept = urlencode(query)
    return f"?{kept}&" if kept else "?"


@functools.lru_cache(maxsize=1024)
def one_param(param: str, value: str) -> str:
    return f"{parse.quote_plus(param)}={parse.quote_plus(value)}"


def fold_param_removed(query: Mapping[str, str], category: str) -> str | None:
    folded = [f for f in query.get(FOLD.name, "").split(",") if f]
    if category not in folded:
        return None
    rest = {**query, FOLD.name: ",".join(f for f in folded if f != category)}
    kept = urlencode({k: v for k, v in rest.items() if v})
    return f"?{kept}" if kept else ""
