"""A head-to-head: two products story by story, its rounds scored from their cells
(``arena.scoring.rounds.compare_many``, the one scoring on a page read)."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.models import Arena, Source
from arena.scoring.certainty import TOO_CLOSE, Call, Ranged, pair_call
from arena.scoring.rounds import CompareSummary, ManyRound, compare_many
from arena.scoring.tally import ProductKey, StoryIn
from arena.selectors.arenas import arena_story_list
from arena.selectors.calls import ranged_of
from arena.selectors.cells import cell_in, cited_sources, winner_of, with_evidence
from arena.selectors.leaderboard import arena_score_list
from arena.selectors.matrix import Rounds, matrix_block_list
from products.models import Product
from stories.models import Cell, Story

# Over this many rounds, each round's rationale and evidence load when it is opened (a whole
# arena's cards at once keep a phone busy long enough to delay its first taps).
HEAD_TO_HEAD_INLINE = 12


@dataclass
class CompareRow:
    story: Story
    winner: Product | None  # the round's winner; None: drawn
    cell_a: Cell
    cell_b: Cell
    number: int = 0  # place in its sub-group, from 1, as the published pages number rounds

    @property
    def cells(self) -> dict[Product, Cell]:
        return {self.cell_a.product: self.cell_a, self.cell_b.product: self.cell_b}


@dataclass(kw_only=True)
class Comparison(Rounds[CompareSummary]):
    a: Product
    b: Product
    leader: Product | None  # more rounds won (weighted, then counted); None: level
    rows: list[CompareRow]  # the rounds: stories where neither cell is n/a
    call: Call = TOO_CLOSE  # who leads by the one rule, by product pk
    ranged: dict[str, Ranged] = field(default_factory=dict)  # by side, "a" and "b"
    sources: dict[str, Source] = field(default_factory=dict)  # what the published detail cites

    @property
    def call_leader(self) -> Product | None:
        by: dict[ProductKey | None, Product] = {self.a.pk: self.a, self.b.pk: self.b}
        return by.get(self.call.leader)

    @property
    def products(self) -> tuple[Product, Product]:
        return (self.a, self.b)

    @property
    def won(self) -> dict[Product, int]:
        return {self.a: self.summary.won_a, self.b: self.summary.won_b}

    @property
    def weighted(self) -> dict[Product, int]:
        return {self.a: self.summary.weighted_a, self.b: self.summary.weighted_b}


def head_to_head_get(
    *, arena: Arena, a: Product, b: Product, differences_only: bool = False
) -> Comparison:
    """``a`` vs ``b`` story by story, their cells with evidence: three queries."""
    stories = {s.pk: s for s in arena_story_list(arena=arena)}
    pair = {a.pk: a, b.pk: b}
    cells = Cell.objects.filter(story__arena=arena, product__in=list(pair))
    by: dict[tuple[int, int], Cell] = {}
    for cell in cells.with_backing().prefetch_related(with_evidence()).order_by():
        cell.product = pair[cell.product_id]
        by[cell.story_id, cell.product_id] = cell
    read = [StoryIn(s.pk, s.weight, s.category.name, s.persona.slug) for s in stories.values()]
    rounds = compare_many(read, map(cell_in, by.values()), (a.pk, b.pk)).rounds
    summary = CompareSummary.of(rounds, (a.pk, b.pk))
    rows = [
        CompareRow(
            stories[r.story_id],
            winner_of(r.winner, a, b),
            by[r.story_id, a.pk],
            by[r.story_id, b.pk],
        )
        for r in summary.rounds
    ]
    for block in matrix_block_list(rows=rows):  # each round numbered within its sub-group
        for group in block.groups:
            for number, row in enumerate(group.rows, start=1):
                row.number = number
    by_category: dict[int, list[ManyRound]] = {}
    for r in summary.rounds:
        by_category.setdefault(stories[r.story_id].category_id, []).append(r)
    shown = [row for row in rows if row.winner is not None] if differences_only else rows
    stored = {s.product_id: s for s in arena_score_list(arena=arena)}
    ranged = {"a": ranged_of(stored.get(a.pk), a.pk), "b": ranged_of(stored.get(b.pk), b.pk)}
    return Comparison(
        a=a,
        b=b,
        summary=summary,
        leader=winner_of(summary.leader, a, b),
        rows=rows,
        blocks=matrix_block_list(rows=shown),
        tallies={pk: CompareSummary.of(rs, (a.pk, b.pk)) for pk, rs in by_category.items()},
        differences_only=differences_only,
        shown=len(shown),
        call=pair_call(ranged["a"], ranged["b"]),
        ranged=ranged,
        sources=cited_sources(arena_id=arena.pk, cells=by.values()),
    )
