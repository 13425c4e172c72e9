"""The templates' library ``{% load arena_tags %}``: the tags and filters of the pages, written in
``web/pages/`` and registered here under the names the templates use."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django import template
from django.conf import settings

from arena.models import Source
from arena.scoring.results import WEIGHT_LEVELS
from arena.selectors.calls import first_leads
from core.text import format_figure
from stories import freshness
from stories.models import Cell
from stories.values import CellValue
from web.pages import arena, cells, compare, facts, front, links, matrix
from web.pages.cells import NO_SOURCES

register = template.Library()

register.filter("figure", format_figure)  # 143400 → ``143.4k``, as the seed pages print figures
register.filter("score", cells.score_text)
register.filter("proof_mark", cells.proof_mark)
register.filter("arena_updated", cells.arena_updated)
register.filter("weights_hx_vals", links.weights_hx_vals)
register.filter("first_leads", first_leads)  # an arena card's first product leads the second
register.filter("search_url", front.search_url)
register.filter("pairs", compare.pairs)
register.filter("picked_first", compare.picked_first)
register.simple_tag(lambda number: f"?page={int(number)}", name="page_url")
register.simple_tag(lambda: cells.VERDICT_CHOICES, name="verdict_choices")
register.simple_tag(lambda: WEIGHT_LEVELS.items(), name="weight_levels")


@register.filter
def get(mapping: Mapping[str, object] | None, key: str) -> object:
    """``mapping|get:key``: a dictionary's value by a key the template holds in a variable."""
    return (mapping or {}).get(key)


_tag: Callable[..., object]
for _tag in (
    freshness.stale_days,
    cells.verdict,
    links.url_prefix,
    arena.persona_card_list,
    arena.leaderboard_lines,
    arena.range_group_whos,
    arena.names_of,
    compare.compare_scores,
    compare.compare_rows,
    compare.round_cards,
    matrix.matrix_blocks,
    matrix.matrix_rows,
    matrix.product_rows,
    facts.product_facts,
):
    register.simple_tag(_tag)

register.inclusion_tag("arena/_ranged.html", name="ranged")(arena.ranged)
register.inclusion_tag("arena/_ranged.html", name="score_with_range")(arena.score_with_range)
register.inclusion_tag("arena/_open_disputes.html")(arena.open_disputes)
register.inclusion_tag("arena/_evidence_share.html")(arena.evidence_share)


@register.inclusion_tag("arena/_cell.html#label")
def verdict_label(value: CellValue) -> dict[str, object]:
    """A judgement in words, ``partial claimed 5/10``."""
    return {"v": value}


@register.inclusion_tag("arena/_cell.html#card")
def cell_card(
    cell: Cell, sources: Mapping[str, Source] = NO_SOURCES, story: str = ""
) -> dict[str, object]:
    return {"card": cells.card(cell, sources, story)}


@register.simple_tag
def data_license() -> dict[str, str]:
    """The licence the published data is offered under: its address and name."""
    return {"url": settings.DATA_LICENSE_URL, "name": settings.DATA_LICENSE_NAME}
