"""The site search's ``?q=`` and the home page's "X vs Y" picker, with a 400's message when unusable."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import QueryDict

from core.text import clean_text
from web.params import PICK_ARENA, SEARCH_Q, SLUG, A, B

SEARCH_MAX_LENGTH = 100  # longer is refused, not cut
SEARCH_MIN_CHARS = 2  # letters or digits (one letter finds everything)


@dataclass(frozen=True)
class SearchAsked:
    """``text``, or "" with ``problem`` saying why."""

    text: str
    asked: bool
    problem: str

    @classmethod
    def of(cls, query: QueryDict) -> SearchAsked:
        if SEARCH_Q.name not in query:
            return cls("", asked=False, problem="")
        raw = clean_text(query.get(SEARCH_Q.name) or "")
        text = " ".join(raw.split())
        if not text:
            problem = "Type a word or two to search for."
        elif len(text) > SEARCH_MAX_LENGTH:
            problem = f"A search is at most {SEARCH_MAX_LENGTH} characters; try fewer words."
        elif sum(c.isalnum() for c in text) < SEARCH_MIN_CHARS:
            problem = f"Search for a word of at least {SEARCH_MIN_CHARS} letters or digits."
        else:
            problem = ""
        return cls("" if problem else text, asked=True, problem=problem)


@dataclass(frozen=True)
class PairPicked:
    """The picker's arena and two products, or a 400's ``problem``."""

    arena: str
    a: str
    b: str
    problem: str = ""

    @classmethod
    def of(cls, query: QueryDict) -> PairPicked:
        arena, a, b = (
            clean_text(query.get(p.name) or "").strip()[:120] for p in (PICK_ARENA, A, B)
        )
        if not (arena and a and b):
            return cls(arena, a, b, "Pick an arena and two of its products.")
        if not all(SLUG.fullmatch(s) for s in (arena, a, b)):
            return cls(arena, a, b, "Pick the arena and the products from the lists.")
        if a == b:
            return cls(arena, a, b, "Pick two different products to compare.")
        return cls(arena, a, b)
