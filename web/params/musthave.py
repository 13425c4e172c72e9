"""What the must-have check is asked for (``MustHaveAsked``), read from its query."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import QueryDict

from arena.scoring.musthave import NEEDS, MustHaves
from arena.selectors.weights import WeightsAsked
from core.text import clean_text
from web.params import (
    MUST,
    MUST_MAX,
    NEED,
    PARAM_MAX_LENGTH,
    SHOW_MAX,
    WEIGHTS_MAX_LENGTH,
    Param,
    record_id,
    split_items,
    weights_parse,
    weights_text,
)


@dataclass(frozen=True)
class MustHaveAsked:
    """``?must=<story id>,…`` and ``?need=<fact>,…``; ``canonical``: whether the query spells them
    so (else a full page is redirected); ``problems``: what cannot be read (a 400)."""

    must: MustHaves
    canonical: bool
    problems: tuple[str, ...]
    weights: WeightsAsked

    @classmethod
    def of(cls, query: QueryDict) -> MustHaveAsked:
        problems: list[str] = []
        ids: list[int] = []
        for item in _list_items(query, MUST):
            story = record_id(item)
            if story is None:
                problems.append(f"A must-have story is given by its number, not {item[:40]!r}.")
            elif story not in ids:
                ids.append(story)
        if len(ids) > MUST_MAX:
            problems.append(f"At most {MUST_MAX} must-have stories; {len(ids)} were given.")
            ids = ids[:MUST_MAX]
        needs = _list_items(query, NEED)
        if unknown := [n for n in needs if n not in NEEDS]:
            problems.append(f"No fact {unknown[0][:40]!r} to require: one of {', '.join(NEEDS)}.")
        must = MustHaves(tuple(sorted(ids)), tuple(n for n in NEEDS if n in needs))
        sent = [(name, query.getlist(name)) for name in (MUST.name, NEED.name) if name in query]
        written = [
            (name, [value])
            for name, value in (
                (MUST.name, ",".join(map(str, must.stories))),
                (NEED.name, ",".join(must.needs)),
            )
            if value
        ]
        return cls(
            must=must,
            canonical=sent == written,
            problems=tuple(problems),
            weights=weights_parse(weights_text(query)[:WEIGHTS_MAX_LENGTH]),
        )


def _list_items(query: QueryDict, param: Param) -> list[str]:
    values = query.getlist(param.name)[:SHOW_MAX]
    return split_items(clean_text(value)[:PARAM_MAX_LENGTH] for value in values)[:SHOW_MAX]
