"""``{% load arena_tags %}``: the pages' tags and filters, written in ``web/pages/``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping

from django import template
from django.conf import settings

from arena.models import Source
from arena.scoring.results import WEIGHT_LEVELS
from arena.selectors.calls import first_leads
from core.text import format_figure
from stories import freshness
from stories.models import Cell
from web.pages import arena, cells, compare, facts, front, links, matrix
from web.pages.cells import NO_SOURCES

register = template.Library()

register.filter("figure", format_figure)  # 143400 → ``143.4k``, as the seed pages print figures
register.filter("score", lambda value: "—" if value is None else f"{value}/100")
register.filter("proof_mark", cells.proof_mark)
register.filter("arena_updated", cells.arena_updated)
register.filter("first_leads", first_leads)  # an arena card's first product leads the second
register.filter("search_url", front.search_url)
register.filter("pairs", lambda products: list(itertools.combinations(products, 2)))
register.simple_tag(lambda number: f"?page={int(number)}", name="page_url")
register.filter("pages_around", lambda block: links.neighbour_pages(block.page, block.pages))
register.simple_tag(lambda: cells.VERDICT_CHOICES, name="verdict_choices")
register.simple_tag(lambda: WEIGHT_LEVELS.items(), name="weight_levels")
register.simple_tag(
    lambda: {"url": settings.DATA_LICENSE_URL, "name": settings.DATA_LICENSE_NAME},
    name="data_license",
)
register.filter("get", lambda mapping, key: (mapping or {}).get(key))  # a key held in a variable

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
    matrix.matrix_bodies,
    matrix.product_rows,
    facts.product_facts,
):
    register.simple_tag(_tag)

register.inclusion_tag("arena/_ranged.html", name="ranged")(arena.ranged)
register.inclusion_tag("arena/_open_disputes.html")(arena.open_disputes)
register.inclusion_tag("arena/_evidence_share.html")(arena.evidence_share)
register.inclusion_tag("arena/_cell.html#label", name="verdict_label")(lambda value: {"v": value})


@register.inclusion_tag("arena/_cell.html#card")
def cell_card(
    cell: Cell, sources: Mapping[str, Source] = NO_SOURCES, story: str = ""
) -> dict[str, object]:
    return {"card": cells.card(cell, sources, story)}
