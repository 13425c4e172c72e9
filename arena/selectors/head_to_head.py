"""A head-to-head: two products story by story, built from their cells (not from stored pages).
Its rounds are the one thing scored on a page read (``arena.scoring.compare``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db.models import QuerySet

from arena import scoring
from arena.models import Arena, Source
from arena.selectors.arenas import arena_story_list
from arena.selectors.calls import pair_scores_get, ranged_of
from arena.selectors.cells import (
    CELL_DETAIL_FIELDS,
    CELL_LINE_FIELDS,
    QUOTE_FIELDS,
    CellLine,
    Quote,
    Quotes,
    cell_in,
    winner_of,
)
from arena.selectors.matrix import CategoryBlock, matrix_block_list
from arena.selectors.sources import cited_source_map
from products.models import Product
from stories.models import Cell, Evidence, Story


@dataclass
class CompareRow:
    story: Story
    winner: Product | None  # the round's winner; None: drawn
    cell_a: CellLine
    cell_b: CellLine
    number: int = 0  # place in its sub-group, from 1, as the published pages number rounds

    @property
    def cells(self) -> dict[Product, CellLine]:
        """The two cells by their product, ``a``'s first."""
        return {self.cell_a.product: self.cell_a, self.cell_b.product: self.cell_b}


# A head-to-head with more rounds than this shows its rounds' rationale and evidence on demand:
# each round's cards load when it is opened (``?open=<story>``), or all of them with ``open=all``.
# A dozen rounds' cards weigh little; a whole arena's (the bundled one's 53 rounds, some 5,000
# elements) keep a phone's main thread busy long enough to delay its first taps.
HEAD_TO_HEAD_INLINE = 12


@dataclass
class Comparison:
    a: Product
    b: Product
    summary: scoring.CompareSummary
    # wins more rounds: ahead on the weighted tally, then on rounds won; None: level. Not who
    # leads: that is ``call`` (the one rule, ``scoring.pair_call`` on the PA Score ranges)
    leader: Product | None
    rows: list[CompareRow]  # the rounds: stories where neither cell is n/a, in matrix order
    blocks: list[CategoryBlock]  # the rounds shown under their category and sub-group headings
    # each category's tally over all its rounds (shown or not), by the category's pk
    tallies: dict[int, scoring.CompareSummary] = field(default_factory=dict)
    differences_only: bool = False  # only the rounds one side wins are shown (no drawn round)
    shown: int = 0  # how many rounds are shown
    call: scoring.Call = scoring.TOO_CLOSE  # who leads (``scoring.pair_call``), by product pk
    # each side's stored PA Score with its range, by side ("a", "b")
    ranged: dict[str, scoring.Ranged] = field(default_factory=dict)
    # the arena's source list entries for the ids the published rationales and quotes cite
    sources: dict[str, Source] = field(default_factory=dict)

    @property
    def call_leader(self) -> Product | None:
        """The product that leads by the one rule (None: too close to call)."""
        by: dict[scoring.ProductKey | None, Product] = {self.a.pk: self.a, self.b.pk: self.b}
        return by.get(self.call.leader)

    @property
    def hidden(self) -> int:
        return len(self.rows) - self.shown

    @property
    def products(self) -> tuple[Product, Product]:
        return (self.a, self.b)

    @property
    def round_count(self) -> int:
        return len(self.rows)

    @property
    def won(self) -> dict[Product, int]:
        return {self.a: self.summary.won_a, self.b: self.summary.won_b}

    @property
    def weighted(self) -> dict[Product, int]:
        return {self.a: self.summary.weighted_a, self.b: self.summary.weighted_b}


def _pair_cells(arena: Arena, products: list[int]) -> QuerySet[Cell]:
    return Cell.objects.filter(story__arena=arena, product__in=products)


def _pair_cell_lines(arena: Arena, a: Product, b: Product) -> dict[tuple[int, int], CellLine]:
    """The two products' cells with their evidence, by (story, product): two queries."""
    pair = {a.pk: a, b.pk: b}
    quotes: dict[int, list[Quote]] = {}
    evidence = Evidence.objects.filter(cell__in=_pair_cells(arena, [a.pk, b.pk]))
    for cell_id, *quote in evidence.order_by("cell_id", "position").values_list(*QUOTE_FIELDS):
        quotes.setdefault(cell_id, []).append(Quote(*quote))
    cells = {}
    rows = _pair_cells(arena, [a.pk, b.pk]).values_list(*CELL_LINE_FIELDS, *CELL_DETAIL_FIELDS)
    for pk, sid, pid, *judgement_and_detail in rows:
        cells[(sid, pid)] = cell = CellLine(pk, sid, pair[pid], *judgement_and_detail)
        if pk in quotes:
            cell.evidence = Quotes(quotes[pk])
    return cells


def _numbered(rows: Sequence[CompareRow]) -> list[CategoryBlock]:
    """The rows under their headings, each numbered within its sub-group from 1."""
    blocks = matrix_block_list(rows=rows)
    for block in blocks:
        for group in block.groups:
            for number, row in enumerate(group.rows, start=1):
                row.number = number
    return blocks


def head_to_head_get(
    *, arena: Arena, a: Product, b: Product, differences_only: bool = False
) -> Comparison:
    """``a`` vs ``b`` (two products of ``arena``) with each cell's evidence: three queries, plain
    records (no model instance: the big arena's pair has 600 cells and a thousand quotes); a fourth for the pair's stored PA Scores, who leads (``call``), and a fifth for
    the sources its published detail cites. With ``differences_only`` the blocks hold only the
    rounds that are not drawn (one side wins); the tallies always count every round."""
    stories = list(arena_story_list(arena=arena))
    by = _pair_cell_lines(arena, a, b)
    story_in = [scoring.StoryIn(s.pk, s.weight, s.category.name, s.persona.slug) for s in stories]
    cells_a = {sid: cell_in(c) for (sid, pid), c in by.items() if pid == a.pk}
    cells_b = {sid: cell_in(c) for (sid, pid), c in by.items() if pid == b.pk}
    summary = scoring.compare(story_in, cells_a, cells_b, a.pk, b.pk)
    story_by_id = {s.pk: s for s in stories}
    rows = [
        CompareRow(
            story=story_by_id[r.story_id],
            winner=winner_of(r.winner, a, b),
            cell_a=by[(r.story_id, a.pk)],
            cell_b=by[(r.story_id, b.pk)],
        )
        for r in summary.rounds
    ]
    blocks = _numbered(rows)
    by_category: dict[int, list[scoring.Round]] = {}
    for r in summary.rounds:
        by_category.setdefault(story_by_id[r.story_id].category_id, []).append(r)
    tallies = {pk: scoring.tally_rounds(rs, a.pk, b.pk) for pk, rs in by_category.items()}
    shown = [row for row in rows if row.winner is not None] if differences_only else rows
    if differences_only:
        blocks = matrix_block_list(rows=shown)
    stored = pair_scores_get(arena=arena, keys=(a.pk, b.pk))
    ranged = {"a": ranged_of(stored.get(a.pk), a.pk), "b": ranged_of(stored.get(b.pk), b.pk)}
    return Comparison(
        a,
        b,
        summary,
        winner_of(summary.leader, a, b),
        rows,
        blocks,
        tallies=tallies,
        differences_only=differences_only,
        shown=len(shown),
        call=scoring.pair_call(ranged["a"], ranged["b"]),
        ranged=ranged,
        sources=_cited(arena, by.values()),
    )


def _cited(arena: Arena, cells: Iterable[CellLine]) -> dict[str, Source]:
    """The source list entries the cells' published detail cites: one query."""
    texts = [
        text
        for c in cells
        if c.detail_published
        for text in (c.rationale, *(q.source for q in c.evidence))
    ]
    return cited_source_map(arena_id=arena.pk, texts=texts)
