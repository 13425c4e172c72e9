"""The site search's ``?q=``, with a 400's message when unusable."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import QueryDict

from core.text import clean_text
from web.params import SEARCH_Q

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
