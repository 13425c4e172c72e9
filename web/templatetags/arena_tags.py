"""The templates' library ``{% load arena_tags %}``: every tag and filter of the pages, each
written in ``web/pages/`` (one module per job) and registered here under the name the templates
use. Most hand data to a template (an inclusion tag, or ``as`` a variable); the matrix's and the
comparison's rows are HTML that builders write, every value escaped."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django import template
from django.conf import settings

from arena.selectors.calls import first_leads
from core.text import format_figure
from stories import freshness as stale_rule
from web.pages import (
    arena_cards,
    badges,
    cards,
    charts,
    compare,
    disputes,
    facts,
    filters,
    freshness,
    front,
    head_to_head,
    leaderboard,
    legend,
    links,
    matrix,
    ranges,
    weights,
)
from web.pages.markup import score_text

register = template.Library()

# ---- filters

register.filter("figure", format_figure)  # 143400 → ``143.4k``, as the seed pages print figures
register.filter("score", score_text)  # ``71/100``, or an em dash without a score
register.filter("proof_mark", badges.proof_mark)  # ``T``: a proof level's mark on the pages
register.filter("arena_updated", freshness.arena_updated)  # the pages' date or a later change
for _filter in (freshness.iso_day, freshness.iso_minute, freshness.iso_second):
    register.filter(_filter.__name__, _filter, expects_localtime=True)
register.filter("weight_groups", weights.weight_groups)  # the weights panel's menus
register.filter("weights_hx_vals", links.weights_hx_vals)  # what a weights link sends with htmx
register.filter("first_leads", first_leads)  # an arena card's first product leads the second
register.filter("search_url", front.search_url)  # the search page for a text
register.filter("pairs", compare.pairs)  # the compared products' pairs
register.filter("picked_first", compare.picked_first)  # the comparison's picker's order


@register.filter
def get(mapping: Mapping[str, object] | None, key: str) -> object:
    """``mapping|get:key``: a dictionary's value by a key the template holds in a variable."""
    return (mapping or {}).get(key)


# ---- a judgement, a cell, its evidence (every page)

_tag: Callable[..., object]

for _tag in (
    stale_rule.stale_days,
    badges.verdict,
    links.product_url,
    links.url_prefix,
    links.head_to_head_url,
    links.compare_picker_url,
    links.category_stories_url,
    links.stale_stories_url,
    links.clear_filters_url,
    links.page_url,
    links.disputes_url,
):
    register.simple_tag(_tag)

register.inclusion_tag("arena/_cell.html#label", name="verdict_label")(badges.label)
register.inclusion_tag("arena/_cell.html#age", name="evidence_checked")(cards.evidence_age)
register.inclusion_tag("arena/_cell.html#evidence", name="evidence_item")(cards.evidence_item)
register.inclusion_tag("arena/_cell.html#refs", name="with_refs")(cards.with_refs)
register.inclusion_tag("arena/_cell.html#card", name="cell_card")(cards.cell_card)
register.inclusion_tag("arena/_legend.html")(legend.legend)
register.inclusion_tag("arena/_ranged.html", name="ranged")(ranges.ranged_context)
register.inclusion_tag("arena/_ranged.html", name="score_with_range")(ranges.score_with_range)
register.inclusion_tag("arena/_open_disputes.html")(disputes.open_disputes)
register.inclusion_tag("arena/_evidence_share.html")(leaderboard.evidence_share)
for _tag in (
    arena_cards.persona_card_list,
    compare.compare_scores,
    compare.compare_tally,
    compare.compare_rows,
    leaderboard.leaderboard_lines,
    leaderboard.range_group_whos,
    leaderboard.names_of,
):
    register.simple_tag(_tag)

# ---- the arena page: leaderboard, weights, persona cards, matrix and its filters

for _tag in (
    filters.verdict_choices,
    legend.proof_levels,
    matrix.matrix_blocks,
    matrix.matrix_rows,
    compare.compare_url,
):
    register.simple_tag(_tag)

# ---- the head-to-head, the comparison and the product page

for _tag in (
    head_to_head.head_to_head_sections,
    head_to_head.round_cards,
    charts.bar_chart,
    matrix.product_rows,
    facts.product_facts,
):
    register.simple_tag(_tag)


@register.simple_tag
def data_license() -> dict[str, str]:
    """The licence the published data is offered under: its address and name."""
    return {"url": settings.DATA_LICENSE_URL, "name": settings.DATA_LICENSE_NAME}
