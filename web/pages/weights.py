"""The weights panel of the arena page: a menu per category and user type, the presets' and the
reset's links, and the summary of the weights in effect above the leaderboard."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe

from arena import scoring
from arena.selectors import Leaderboard
from web.pages import links
from web.pages.markup import esc

_LEGENDS = {"category": "Categories", "persona": "User types"}


def weights_summary(board: Leaderboard) -> str:
    """``Privacy posture ×3, Agenticness ignored`` (escaped), or ``all normal``."""
    said = board.reading.summary if board.reading is not None else []
    return ", ".join(esc(s) for s in said) or "all normal"


def weight_controls(board: Leaderboard) -> str:
    """The weights panel's controls: per category, then per user type, a menu ignore / normal /
    important / critical (``w-<key>``, 0-3) showing the level in effect."""
    if board.reading is None:
        return ""
    groups: dict[str, list[str]] = {"category": [], "persona": []}
    for control in board.reading.controls:
        key = control.key
        field = esc(control.field)
        levels = "".join(
            f'<option value="{level}"{" selected" if level == control.value else ""}>'
            f"{esc(word)}</option>"
            for level, word in scoring.WEIGHT_LEVELS.items()
        )
        groups[key.kind].append(
            f'<div class="wfield"><label for="{field}">{esc(key.label)}</label>'
            f'<select id="{field}" name="{field}">{levels}</select></div>'
        )
    return mark_safe(
        "".join(
            f'<fieldset class="wgroup"><legend>{_LEGENDS[kind]}</legend>'
            f'<div class="wgrid">{"".join(items)}</div></fieldset>'
            for kind, items in groups.items()
            if items
        )
    )


def weights_link(url: str, arena_url: str, weights: str, text: str) -> SafeString:
    """A link that sets the weights (a preset, the reset): the shareable address without
    JavaScript; with htmx it re-ranks the leaderboard in place, the matrix filters kept."""
    vals = esc(links.weights_hx_vals(weights))
    return mark_safe(
        f'<a href="{esc(url)}" hx-get="{esc(arena_url)}" hx-vals="{vals}"'
        ' hx-include="#matrix-filters" hx-target="#leaderboard" hx-indicator="#leaderboard">'
        f"{esc(text)}</a>"
    )
