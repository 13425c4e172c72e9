"""The small pieces every builder writes with: escaping, plurals, a score."""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Mapping


# Django's ``escape`` (the same output) checks for lazy strings on each call and marks its result
# safe; the builders write their markup with this one and mark the whole of it safe once. A page
# escapes the same few hundred texts (product names, slugs, story texts, labels) on every render,
# some of them dozens of times: each text is escaped once and its escaped form kept.
@functools.lru_cache(maxsize=8192)
def esc(text: str) -> str:
    return html.escape(text)


def plural(n: int, one: str, many: str) -> str:
    """``1 story``, ``3 stories``."""
    return f"{n} {one if n == 1 else many}"


def category_tally[T](
    tallies: Mapping[int, T],
    category: int,
    count: int,
    differences_only: bool,
    say: Callable[[T], str],
) -> str:
    """A category's tally over all its rounds (``say`` writes one) and, when only the rounds that
    differ are shown, `` · 3 rounds shown`` (``count``)."""
    tally = tallies.get(category)
    shown = (
        f' <span class="muted">· {plural(count, "round", "rounds")} shown</span>'
        if differences_only
        else ""
    )
    return f"{say(tally) if tally else ''}{shown}"


def score_text(value: int | None) -> str:
    """A stored score out of 100, or an em dash when there is none."""
    return "—" if value is None else f"{value}/100"
