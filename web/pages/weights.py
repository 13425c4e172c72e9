"""The weights panel of the arena page: a menu per category and user type (``arena/detail.html``
draws them)."""

from __future__ import annotations

from dataclasses import dataclass

from arena import scoring
from arena.selectors import Leaderboard
from web.params import links

_LEGENDS = {"category": "Categories", "persona": "User types"}


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
