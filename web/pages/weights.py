"""The weights panel of the arena page: a menu per category and user type, and the summary of the
weights in effect above the leaderboard, and the panel's preset and reset links (the reset link
in the leaderboard's caption is the template's ``weights_link``; both send
``links.weights_hx_vals``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.safestring import SafeString, mark_safe

from arena import scoring
from arena.selectors import Leaderboard
from web.pages.markup import esc
from web.params import links

_LEGENDS = {"category": "Categories", "persona": "User types"}


def weights_link(url: str, arena_url: str, weights: str, text: str) -> str:
    """A link that ranks the board by ``weights`` (``url`` without JavaScript; htmx asks
    ``arena_url`` for the leaderboard with them), as the template's ``weights_link`` writes it."""
    return (
        f'<a href="{esc(url)}" hx-get="{esc(arena_url)}" hx-vals="{esc(links.weights_hx_vals(weights))}"'
        ' hx-include="#matrix-filters" hx-target="#leaderboard" hx-indicator="#leaderboard">'
        f"{esc(text)}</a>"
    )


def weights_presets(
    presets: Sequence[tuple[str, str, str]], reset_url: str, arena_url: str
) -> SafeString:
    """The panel's presets, each ``(text, weights, url)`` (``Rank as a dev would``), then the
    link back to the published weights."""
    out = [f"{weights_link(url, arena_url, weights, text)} · " for text, weights, url in presets]
    out.append(weights_link(reset_url, arena_url, "", "Reset to the published weights"))
    return mark_safe("".join(out))  # every interpolated value is escaped


def weights_summary(board: Leaderboard) -> str:
    """``Privacy posture ×3, Agenticness ignored`` (escaped), or ``all normal``."""
    said = board.reading.summary if board.reading is not None else []
    return ", ".join(esc(s) for s in said) or "all normal"


@dataclass(frozen=True)
class WeightField:
    """One menu of the weights panel: ``w-<key>``, its label, and each level with whether it is
    the one in effect."""

    field: str
    label: str
    levels: list[tuple[int, str, bool]]


@dataclass(frozen=True)
class WeightGroup:
    legend: str  # "Categories", "User types"
    fields: list[WeightField]


def weight_groups(board: Leaderboard) -> list[WeightGroup]:
    """The weights panel's menus (``arena/detail.html`` draws them): per category, then per user
    type, ignore / normal / important / critical (0-3), the level in effect selected."""
    if board.reading is None:
        return []
    groups: dict[str, list[WeightField]] = {"category": [], "persona": []}
    for control in board.reading.controls:
        levels = [
            (level, word, level == control.value) for level, word in scoring.WEIGHT_LEVELS.items()
        ]
        groups[control.key.kind].append(
            WeightField(links.weight_field(control.key.key), control.key.label, levels)
        )
    return [WeightGroup(_LEGENDS[kind], fields) for kind, fields in groups.items() if fields]


def weights_controls(board: Leaderboard) -> SafeString:
    """The weights panel's menus as HTML (``weight_groups``, each group a fieldset): written here
    rather than by template loops, which took a tenth of the arena page's render."""
    out = []
    for group in weight_groups(board):
        out.append(
            f'<fieldset class="wgroup"><legend>{esc(group.legend)}</legend><div class="wgrid">'
        )
        for f in group.fields:
            name = esc(f.field)
            options = "".join(
                f'<option value="{level}"{" selected" if selected else ""}>{esc(word)}</option>'
                for level, word, selected in f.levels
            )
            out.append(
                f'<div class="wfield"><label for="{name}">{esc(f.label)}</label>'
                f'<select id="{name}" name="{name}">{options}</select></div>'
            )
        out.append("</div></fieldset>")
    return mark_safe("".join(out))
