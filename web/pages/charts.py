"""The product page's bar chart of its category scores: the geometry of an SVG the template draws."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from web.pages.shapes import Named

CHART_WIDTH = 480  # SVG units; the chart scales to its box, text with it
BAR_ROW = 24  # SVG units per bar
BAR_LEFT = 185  # where the bars start (labels to the left)
BAR_MAX = 250  # width of a 100/100 bar


@dataclass(frozen=True)
class Bar:
    label: str
    value: int | None
    y: int  # the top of its row
    mid: int  # the middle of its row, where its label sits
    width: int
    end: int  # where its value is written, after the bar


@dataclass(frozen=True)
class Tick:
    x: int
    label: int


@dataclass(frozen=True)
class BarChart:
    bars: list[Bar]
    height: int  # of the bars
    total: int  # with the axis below them
    left: int
    ticks: list[Tick]
    bar_height: int
    width: int


def bar_chart(items: Iterable[tuple[Named, int | None]]) -> BarChart:
    """Geometry of a horizontal bar chart of (thing with ``.name``, score or None) pairs."""
    bars = []
    for i, (thing, value) in enumerate(items):
        width = 0 if value is None else round(BAR_MAX * value / 100)
        y = i * BAR_ROW
        bars.append(Bar(thing.name, value, y, y + BAR_ROW // 2, width, BAR_LEFT + width + 6))
    height = len(bars) * BAR_ROW
    ticks = [Tick(BAR_LEFT + BAR_MAX * t // 100, t) for t in (0, 50, 100)]
    return BarChart(bars, height, height + 20, BAR_LEFT, ticks, BAR_ROW - 9, CHART_WIDTH)
