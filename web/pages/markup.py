"""The small pieces the builders write with: escaping, a score."""

from __future__ import annotations

import functools
import html


# Django's ``escape`` (the same output) checks for lazy strings on each call and marks its result
# safe; the builders write their markup with this one and mark the whole of it safe once. A page
# escapes the same few hundred texts (product names, slugs, story texts, labels) on every render,
# some of them dozens of times: each text is escaped once and its escaped form kept.
@functools.lru_cache(maxsize=8192)
def esc(text: str) -> str:
    return html.escape(text)


def score_text(value: int | None) -> str:
    """A stored score out of 100, or an em dash when there is none."""
    return "—" if value is None else f"{value}/100"
