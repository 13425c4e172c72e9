"""The query parameters, each named once, and those each page reads (``PAGE_PARAMS``: allow-list)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest, QueryDict
from django_htmx.middleware import HtmxDetails

from arena.scoring.musthave import NEEDS
from arena.scoring.ranking import RANK_INTEGRITY, RANK_PA, RANK_VERIFIED
from arena.scoring.results import WEIGHT_LEVELS
from arena.scoring.rounds import COMPARE_MAX, COMPARE_MIN
from arena.selectors.matrix import MatrixFilters
from arena.selectors.weights import WeightEntry, WeightsAsked
from core.text import SLUG, clean_text
from flags.disputes import DISPUTE_STATES
from stories.values import Verdict


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def fragment_asked(htmx: HtmxDetails) -> bool:
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


@dataclass(frozen=True)
class Param:
    """A query parameter (``kept`` holds for values from short known lists only)."""

    name: str
    kept: Callable[[str], bool] = lambda value: False  # may the page cache keep a page asked so
    many: bool = False  # a list
    canon: Callable[[str], str] = lambda value: value  # the one spelling of values read alike
    blank: bool = False  # whether an empty value counts


def _one_of(*values: str) -> Callable[[str], bool]:
    allowed = frozenset(values)
    return lambda value: value in allowed


PARAM_MAX_LENGTH = 200  # longer values are cut (no filter or key is that long)
SHOW_MAX = 100  # slugs in a list (``?show=``, ``?fold=``, ``?products=``)
COMPARE_KEPT = 3  # the largest comparison kept in the page cache
PAGE_NUMBER_KEPT = 50  # pages of a list beyond this one are rendered, not kept
WEIGHTS_MAX_LENGTH = 4000  # every key of a big arena at 3 fits well within it
RECORD_ID_MAX = 2**63 - 1  # the largest id a database row can have
MUST_MAX = 10  # story must-haves (more is a 400 saying so)
MUST_KEPT = 2  # the largest choice of must-have stories whose page is kept
CATEGORY_TARGET = "mx-cat-"  # a matrix category's body id (``mx-cat-<pk>``): its links' target


def _product_list(value: str) -> bool:
    slugs = value.split(",")
    return (
        COMPARE_MIN <= len(slugs) <= min(COMPARE_MAX, COMPARE_KEPT)
        and len(set(slugs)) == len(slugs)
        and all(SLUG.fullmatch(slug) for slug in slugs)
    )


def number_in(value: str, low: int, high: int) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and low <= int(value) <= high else None


def record_id(value: str) -> int | None:
    return number_in(value.strip(), 1, RECORD_ID_MAX)


def must_kept(value: str) -> bool:
    items = value.split(",")
    if not all(i.isascii() and i.isdigit() and not i.startswith("0") for i in items):
        return False
    ids = [int(i) for i in items]
    return ids == sorted(set(ids)) and len(ids) <= MUST_KEPT


def needs_kept(value: str) -> bool:
    items = value.split(",")
    return items == [n for n in NEEDS if n in items]


STALE_ON = frozenset({"1", "on", "true", "yes"})
PERSONA = Param("persona")
CATEGORY = Param("category")
VERDICT = Param("verdict", _one_of(*Verdict.values))
Q = Param("q")
# every spelling of "on" filters alike, and the page's links write "1"
STALE = Param("stale", _one_of("1"), canon=lambda v: "1" if v.strip().lower() in STALE_ON else v)
SORT = Param("sort")
RANK = Param("rank", _one_of(RANK_PA, RANK_VERIFIED, RANK_INTEGRITY))
SHOW = Param("show", many=True)
FOLD = Param("fold", many=True)
# the visitor's weights (an empty one, the panel's reset, is not none); the panel's ``w-<key>``
WEIGHTS = Param("weights", blank=True)
WEIGHT_FIELD = "w-"
A = Param("a")
B = Param("b")
DIFF = Param("diff", _one_of("1"))
OPEN = Param("open", _one_of("all"))
PRODUCTS = Param("products", _product_list, many=True)
PAGE = Param("page", lambda value: number_in(value, 1, PAGE_NUMBER_KEPT) is not None)
DISPUTE_PRODUCT = Param("product", lambda value: bool(SLUG.fullmatch(value)))
DISPUTE_STORY = Param("story", lambda value: record_id(value) is not None)
DISPUTE_STATE = Param("state", _one_of(*DISPUTE_STATES))
MUST = Param("must", must_kept, many=True)
NEED = Param("need", needs_kept, many=True)
SEARCH_Q = Param("q", blank=True)  # the site search's text (empty: a 400 saying what to type)
PICK_ARENA = Param("arena")  # the arena of the home page's "X vs Y" picker (and ``a``, ``b``)
# the flag form's instance, and the status page's "just sent" notice
FORM = Param("form")
SENT = Param("sent")


def query_string(pairs: Mapping[str, str] | Sequence[tuple[str, str]]) -> str:
    """``?a=1&b=2`` or ``""``; ``:`` and ``,`` unescaped: ``?weights=a:3,b:0`` reads as written."""
    written = urlencode(pairs, safe=":,")
    return f"?{written}" if written else ""


def format_param(formats: Iterable[str]) -> Param:
    return Param("format", _one_of(*formats))


def text(query: QueryDict, param: Param, length: int | None = PARAM_MAX_LENGTH) -> str:
    """The last value given, cut to ``length``, less control characters (PostgreSQL refuses a NUL).
    The API refuses weights longer than WEIGHTS_MAX_LENGTH: it reads them uncut (``None``)."""
    return clean_text(query.get(param.name) or "")[:length]


def items(query: QueryDict, param: Param, length: int | None = PARAM_MAX_LENGTH) -> list[str]:
    """``?<name>=a,b`` or ``?<name>=a&<name>=b``: the distinct items, each value cut to ``length``
    (the API's products uncut: its 400 names an unknown one as sent)."""
    values = [clean_text(v)[:length] for v in query.getlist(param.name)[:SHOW_MAX]]
    found = (item.strip() for value in values for item in value.split(","))
    return list(dict.fromkeys(item for item in found if item))[:SHOW_MAX]


def slug_list(query: QueryDict, param: Param) -> list[str]:
    return [slug for slug in items(query, param, PARAM_MAX_LENGTH * 10) if SLUG.fullmatch(slug)]


def _level(value: str) -> int | None:
    return number_in(value.strip(), min(WEIGHT_LEVELS), max(WEIGHT_LEVELS))


def weights_parse(text: str) -> WeightsAsked:
    """``key:level,…``; an entry that does not read is kept, to be named as left out."""
    entries = []
    for entry in text.split(","):
        if entry := entry.strip():
            name, colon, level = entry.partition(":")
            entries.append(WeightEntry(entry, name if colon else None, _level(level)))
    return WeightsAsked(entries=tuple(entries), given=bool(text.strip()))


def weights_asked(query: QueryDict) -> WeightsAsked:
    """The panel's ``w-<key>`` fields when its form sent them, else ``?weights=``."""
    fields = {
        name.removeprefix(WEIGHT_FIELD): _level(
            clean_text(query.get(name, ""))[:WEIGHTS_MAX_LENGTH]
        )
        for name in query
        if name.startswith(WEIGHT_FIELD)
    }
    if fields:
        return WeightsAsked(fields=fields, given=True)
    return weights_parse(text(query, WEIGHTS, WEIGHTS_MAX_LENGTH))


@dataclass(frozen=True)
class ArenaAsked:
    filters: MatrixFilters
    rank: str  # the rank asked for ("" for none: the published PA Score)
    show: list[str]  # the products picked for the matrix (the "Products shown" form)
    fold: list[str]  # the categories folded in the matrix (their "Hide" links)
    weights: WeightsAsked  # they replace the rank; a rank picked in "Rank by" replaces them
    weights_sent: bool  # the request says something of weights (``?weights=`` even empty)
    weights_carried: str  # the ``?weights=`` a fragment's links carry along, as it was sent
    page: int  # of the stories of the category asked for (``MATRIX_ROWS`` a page)

    @classmethod
    def of(cls, query: QueryDict) -> ArenaAsked:
        filters = matrix_filters(query)
        rank = text(query, RANK).strip()
        weights = weights_asked(query)
        sent = weights.given or WEIGHTS.name in query
        replaced = bool(rank) and not weights.from_form
        carried = text(query, WEIGHTS, WEIGHTS_MAX_LENGTH).strip()
        return cls(
            filters=filters,
            rank=rank,
            show=slug_list(query, SHOW),
            fold=slug_list(query, FOLD),
            weights=WeightsAsked() if replaced else weights,
            weights_sent=sent,
            weights_carried="" if replaced or weights.from_form else carried,
            page=page_number(query),
        )


def page_number(query: QueryDict) -> int:
    """``?page=N`` (1 when missing or not a number; past the last reads as the last)."""
    return number_in(text(query, PAGE).strip(), 1, RECORD_ID_MAX) or 1


def matrix_filters(query: QueryDict) -> MatrixFilters:
    """The matrix's filters asked for: spaces dropped, an unknown verdict ignored."""
    got = {p.name: text(query, p).strip() for p in (PERSONA, CATEGORY, Q, SORT)}
    verdict = text(query, VERDICT).strip()
    return MatrixFilters(
        **got,
        verdict=verdict if verdict in Verdict.values else "",
        stale="1" if text(query, STALE).strip().lower() in STALE_ON else "",
    )


def opened_round(query: QueryDict) -> int | None:
    return number_in(text(query, OPEN), 0, RECORD_ID_MAX)


# Which flag form a request is for: its element ids carry it, so two on one page never share one.
FORM_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
PAGE_FORM = "page"


def flag_form_id(query: QueryDict) -> str:
    value = query.get(FORM.name, "")
    return value if FORM_ID.fullmatch(value) else PAGE_FORM


# The parameters each page reads, in their canonical order; the page cache drops any other.
PAGE_PARAMS: dict[str, tuple[Param, ...]] = {
    "arena-detail": (PERSONA, CATEGORY, VERDICT, Q, STALE, SORT, RANK, SHOW, FOLD, WEIGHTS, PAGE),
    "head-to-head": (A, B, DIFF, OPEN, CATEGORY),
    "arena-compare": (PRODUCTS, DIFF, CATEGORY),
    "product-detail": (CATEGORY, PAGE),
    "arena-must-have": (MUST, NEED, WEIGHTS),
    "home": (PAGE,),
    "recent-changes": (PAGE,),
    "search": (SEARCH_Q,),
    "arena-disputes": (DISPUTE_PRODUCT, DISPUTE_STORY, DISPUTE_STATE, PAGE),
    "arena-disputes-json": (DISPUTE_PRODUCT, DISPUTE_STORY, DISPUTE_STATE, PAGE),
    "arena-disputes-feed": (DISPUTE_PRODUCT, DISPUTE_STORY, DISPUTE_STATE),
    "api-arena-list": (PAGE,),
    "api-arena-matrix": (PAGE,),
    "arena-verify": (PAGE,),
    "arena-verify-json": (PAGE,),
    "api-arena-detail": (WEIGHTS,),
    "api-arena-compare-many": (PRODUCTS,),
}
# Read by the start of their name (the weights panel's fields): passed on, never kept.
PAGE_PARAM_PREFIXES: dict[str, tuple[str, ...]] = {"arena-detail": (WEIGHT_FIELD,)}
