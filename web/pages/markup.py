"""The small pieces every builder writes with: escaping, plurals, a score, a menu's options."""

from __future__ import annotations

import html
from collections.abc import Iterable

# Django's ``escape`` (the same output) checks for lazy strings on each call and marks its result
# safe; the builders write their markup with this one and mark the whole of it safe once.
esc = html.escape


def plural(n: int, one: str, many: str) -> str:
    """``1 story``, ``3 stories``."""
    return f"{n} {one if n == 1 else many}"


def score_text(value: int | None) -> str:
    """A stored score out of 100, or an em dash when there is none."""
    return "—" if value is None else f"{value}/100"


def options(choices: Iterable[tuple[object, object]], selected: str) -> str:
    """``<option>`` elements of (value, label) pairs, ``selected`` the chosen value."""
    return "".join(
        f'<option value="{esc(str(value))}"{" selected" if value == selected else ""}>'
        f"{esc(str(label))}</option>"
        for value, label in choices
    )
