"""The must-have check: each product's answer (``arena.scoring.musthave``) over its cells on the
stories chosen, in the leaderboard's order (the visitor's weights when given)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.models import Arena
from arena.scoring.musthave import (
    NEED_LABELS,
    Certainty,
    Facts,
    MustAnswer,
    MustHaves,
    Outcome,
    must_answer,
)
from arena.scoring.tally import CellIn, is_verified
from arena.selectors.arenas import arena_product_list, arena_story_list
from arena.selectors.leaderboard import Leaderboard, arena_leaderboard
from arena.selectors.weights import WeightsAsked
from products.models import Product
from stories.models import Cell, Story


@dataclass(frozen=True)
class MustRow:
    product: Product
    answer: MustAnswer
    score: int | None  # the visitor's when weighted, else the PA Score
    failing: list[tuple[Cell, bool]]  # each failing cell, with its story, and whether verified
    unjudged: list[Story]  # the stories it has no cell for
    lacking: list[str]  # the labels of the facts it lacks
    unknown: list[str]  # and of those nobody stated

    @property
    def misses(self) -> int:
        return len(self.failing) + len(self.lacking)


@dataclass(frozen=True)
class MustCheck:
    stories: list[Story]  # every story on the pages, in matrix order (the form's choices)
    chosen: list[Story]  # the stories asked for, in matrix order
    rows: list[MustRow]  # every product, those that meet every must-have first
    board: Leaderboard

    @property
    def meeting(self) -> list[MustRow]:
        return [r for r in self.rows if r.answer.outcome == "meets"]


def must_check_get(*, arena: Arena, must: MustHaves, weights: WeightsAsked) -> MustCheck:
    """Every product's answer to ``must``, those that meet it first: four queries."""
    stories = list(arena_story_list(arena=arena))
    known = {s.pk for s in stories}
    chosen_ids = tuple(s for s in must.stories if s in known)
    chosen = [s for s in stories if s.pk in chosen_ids]
    board = arena_leaderboard(arena=arena, asked=weights, stale=False)
    place = {r.product_id: i for i, r in enumerate(board.rows)}
    # (those without a stored score after the others, in column order)
    products = sorted(arena_product_list(arena=arena), key=lambda p: place.get(p.pk, len(place)))
    found = Cell.objects.on_pages().filter(story_id__in=chosen_ids, product__arena=arena)
    by_key = {(c.story_id, c.product_id): c for c in found}
    cells = [
        CellIn(c.story_id, c.product_id, c.verdict, c.proof, c.quality) for c in by_key.values()
    ]
    asked = MustHaves(chosen_ids, must.needs)
    answers = [must_answer(p.pk, asked, cells, Facts(p.hosting, p.licence)) for p in products]
    scores = {r.product_id: r.personal_score if board.weighted else r.pa_score for r in board.rows}
    by_pk = {s.pk: s for s in chosen}
    for cell in by_key.values():
        cell.story = by_pk[cell.story_id]

    rows = [
        MustRow(
            product=p,
            answer=a,
            score=scores.get(p.pk),
            failing=[(by_key[c.story_id, p.pk], is_verified(c)) for c in a.failing],
            unjudged=[by_pk[s] for s in a.unjudged],
            lacking=[NEED_LABELS[n] for n in a.lacking],
            unknown=[NEED_LABELS[n] for n in a.unknown],
        )
        for p, a in zip(products, answers, strict=True)
    ]
    rows.sort(key=lambda r: _SHOWN_FIRST[r.answer.outcome, r.answer.certainty])
    return MustCheck(stories=stories, chosen=chosen, rows=rows, board=board)


# The surest meeting first, then the unknown, then the failures (the likely, which verifying
# could turn, before the certain); each in the leaderboard's order (``sorted`` keeps it).
_SHOWN_FIRST = {
    (Outcome.MEETS, Certainty.CERTAIN): 0,
    (Outcome.MEETS, Certainty.LIKELY): 1,
    (Outcome.UNKNOWN, Certainty.UNKNOWN): 2,
    (Outcome.FAILS, Certainty.LIKELY): 3,
    (Outcome.FAILS, Certainty.CERTAIN): 4,
}
