"""The arena page's cards: "Best by user type" (each persona's winner and runner-up) and the
adjacent arenas."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from arena import scoring
from arena.models import AdjacentArena, PersonaResult
from arena.selectors import Leaderboard
from arena.selectors.calls import first_leads, persona_call
from web.pages import links
from web.pages.front import search_url
from web.pages.markup import esc, plural, score_text
from web.pages.ranges import Range, range_bar

_TIE_BREAKS = {"PA Score": "a higher PA Score", "name": "name (alphabetical)"}


def _call(r: PersonaResult, scores: Mapping[int, Any]) -> str:
    """Whether the winner leads the runner-up by the one rule (``scoring.pair_call`` on their
    scores' ranges over this persona's stories), in words."""
    call = persona_call(r, scores)
    if call is None or r.winner is None or r.runner_up is None:
        return ""
    if call.close:
        return (
            f'\n<p class="call close">Too close to call: the ranges of {esc(r.winner.name)} and '
            f"{esc(r.runner_up.name)} overlap.</p>"
        )
    return (
        f'\n<p class="call">{esc(r.winner.name)} leads {esc(r.runner_up.name)}: its lowest '
        "possible score is above the runner-up’s highest.</p>"
    )


def _winners(r: PersonaResult, products: str, pa: Mapping[int, int | None]) -> str:
    """The winner (linking to its page) with its score, the runner-up, and what decided a tie
    between them (``pa``: the products' PA Scores, which a tie falls to)."""
    if not r.winner:
        return '<p class="winner">No product scored</p>'
    out = (
        f'<p class="winner"><a href="{products}{esc(r.winner.slug)}/">'
        f'{esc(r.winner.name)}</a> <span class="big-score">'
        f"{esc(score_text(r.winner_score))}</span></p>"
    )
    if r.runner_up:
        out += (
            f'\n<p>Runner-up: <a href="{products}{esc(r.runner_up.slug)}/">'
            f"{esc(r.runner_up.name)}</a> ({esc(score_text(r.runner_up_score))})</p>"
        )
        decided_by = scoring.persona_decided_by(
            r.winner_score, r.runner_up_score, pa.get(r.winner.pk), pa.get(r.runner_up.pk)
        )
        if decided_by:
            out += (
                f'\n<p class="tie">Tied at {esc(score_text(r.winner_score))}: '
                f"{esc(r.winner.name)} is ahead by {_TIE_BREAKS[decided_by]}.</p>"
            )
    return out


def _spread(r: PersonaResult, ranges: Mapping[int, Mapping[str, Range | None]]) -> str:
    """`` · range 49–61`` and its bar: the winner's range over this persona's stories."""
    rng = ranges.get(r.winner.pk, {}).get(r.persona.slug) if r.winner else None
    if not rng or r.winner_score is None:
        return ""
    return (
        f' · range <span class="nw">{int(rng[0])}–{int(rng[1])}</span>'
        f"{range_bar(int(r.winner_score), int(rng[0]), int(rng[1]))}"
    )


def _card(r: PersonaResult, arena: str, winners: str, spread: str) -> str:
    slug = esc(r.persona.slug)
    n = int(r.story_count)
    few = ""
    if n < scoring.FEW_STORIES:
        few = (
            f'\n<p class="few"><span aria-hidden="true">⚠</span> Only '
            f"{plural(n, 'story decides', 'stories decide')} this: a hint, not a verdict.</p>"
        )
    url = esc(links.persona_stories_url(arena, r.persona.slug))
    return (
        f'<li class="card">\n<h3>Best for {slug}</h3>\n{winners}\n'
        f'<p class="muted">{n} {slug} stor{"y" if n == 1 else "ies"} scored{spread}</p>'
        f"{few}\n"
        f'<p><a href="{url}">'
        f'See these stories<span class="visually-hidden"> ({slug})</span></a></p>\n</li>'
    )


def persona_names(persona_results: Iterable[PersonaResult]) -> SafeString:
    """``<span class="nw">dev</span> (Developer), ... and ...``: the user types of the "Best by
    user type" cards, by slug and label."""
    names = [
        f'<span class="nw">{esc(r.persona.slug)}</span> ({esc(r.persona.label)})'
        for r in persona_results
    ]
    text = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)
    return mark_safe(text)  # every interpolated value is escaped


def persona_cards(
    persona_results: Iterable[PersonaResult], arena: str, board: Leaderboard | None = None
) -> SafeString:
    """The "Best by user type" cards: each persona's winner and runner-up (linking to their
    pages), what decided a tie between them, its story count (with a warning when fewer than
    ``scoring.FEW_STORIES`` decide it) and the link to its stories in the matrix (``arena``: the
    slug; ``board``: the leaderboard, for the products' PA Scores a tie falls to)."""
    if not persona_results:
        return mark_safe('<li class="card">No persona results stored yet.</li>')
    products = links.url_prefix("product-detail", arena)
    rows = board.rows if board is not None else []
    pa = {row.product_id: row.pa_score for row in rows}
    # each product's range per persona (``ProductScore.persona_ranges``), from the same rows
    ranges = {row.product_id: getattr(row, "persona_ranges", None) or {} for row in rows}
    scores = {row.product_id: row for row in rows}
    return mark_safe(
        "\n".join(
            _card(r, arena, _winners(r, products, pa) + _call(r, scores), _spread(r, ranges))
            for r in persona_results
        )
    )


def first_place(arena: Any) -> SafeString:
    """An arena card's first product: ``Inngest (leads)``, or ``Inngest (too close to call with
    Restate)`` when the second's range reaches the first's (the one rule); ``—`` with no score."""
    if not getattr(arena, "leader_name", None):
        return mark_safe("—")
    name = esc(arena.leader_name)
    if first_leads(arena):
        return mark_safe(f'{name} <span class="call">(leads)</span>')
    return mark_safe(
        f'{name} <span class="call close">(too close to call with {esc(arena.second_name)})</span>'
    )


def adjacent_cards(adjacent: Iterable[AdjacentArena]) -> SafeString:
    """The adjacent arenas' cards (``arena_adjacent_list``): each one linking to its page when it
    is on this site; one that is not says "(no page yet)" and links a search for its name and the
    home page's list of arenas."""
    arenas = links.arenas_prefix()
    home = links.site_url("home")
    out = []
    for a in adjacent:
        slug = getattr(a, "slug", None)  # set by ``arena_adjacent_list`` when it is on this site
        name = esc(a.name)
        if slug:
            name = f'<a href="{arenas}{esc(slug)}/">{name}</a>'
        else:
            name += ' <span class="muted">(no page yet)</span>'
        extra = f'\n<p class="muted">shares: {esc(a.shares)}</p>' if a.shares else ""
        if not slug:
            # no page to link to: a way on (what the site has on it, or the arenas it has)
            extra += (
                f'\n<p class="muted">Not on this site yet: <a href="{esc(search_url(a.name))}">'
                f'search for it</a> or <a href="{home}#arenas-h">see the arenas we have</a>.</p>'
            )
        out.append(
            f'<li class="card">\n<h3>{name} <span class="kicker">arena</span></h3>\n'
            f"<p>{int(a.product_count)} products · leader: {esc(a.leader)}</p>{extra}\n</li>"
        )
    return mark_safe("\n".join(out))
