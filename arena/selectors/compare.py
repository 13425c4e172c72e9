"""Two to six products side by side: their stored scores and a round per story, the rounds decided
by ``arena.scoring.compare_many`` from the matrix's cells (the one thing scored on this read)."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena import scoring
from arena.selectors.arenas import CountedArena
from arena.selectors.calls import ranged_of
from arena.selectors.cells import CellLine, cell_in
from arena.selectors.leaderboard import arena_score_list
from arena.selectors.matrix import CategoryBlock, arena_matrix, matrix_block_list
from products.models import Product
from stories.models import Story

COMPARE_MIN = scoring.COMPARE_MIN
COMPARE_MAX = scoring.COMPARE_MAX


@dataclass(frozen=True)
class ComparePick:
    """What a visitor asked to compare, checked against the arena's products: the products found
    (in the order asked), the slugs that name none, and what is wrong with the pick ("" when it
    can be compared)."""

    products: list[Product]
    unknown: list[str]
    error: str

    @property
    def ok(self) -> bool:
        return not self.error


def compare_pick(*, products: list[Product], slugs: list[str]) -> ComparePick:
    """The arena's ``products`` named by ``slugs`` (each once, in the order given) and what keeps
    them from being compared: unknown slugs, fewer than two or more than six products."""
    by_slug = {p.slug: p for p in products}
    found: list[Product] = []
    unknown: list[str] = []
    for slug in dict.fromkeys(slugs):
        if slug in by_slug:
            found.append(by_slug[slug])
        else:
            unknown.append(slug)
    error = ""
    if unknown:
        names = ", ".join(repr(s[:40]) for s in unknown[:3]) + (" …" if len(unknown) > 3 else "")
        error = (
            f"No product {names} in this arena. Pick {COMPARE_MIN} to {COMPARE_MAX} from the list."
        )
    elif len(found) < COMPARE_MIN:
        error = f"Pick at least {COMPARE_MIN} products to compare."
    elif len(found) > COMPARE_MAX:
        error = f"Pick at most {COMPARE_MAX} products to compare ({len(found)} picked)."
    return ComparePick(found, unknown, error)


@dataclass
class ManyRow(scoring.BestOf):
    """One round: its story, each chosen product's cell on it (column order; a product without a
    cell has no entry) and the products with the best cell (none: drawn)."""

    story: Story
    cells: list[CellLine]
    best: list[Product]

    @property
    def by_product(self) -> dict[Product, CellLine]:
        return {c.product: c for c in self.cells}


@dataclass
class Standing:
    """A product's column of the summary: its stored scores and its part of the rounds."""

    product: Product
    pa_score: int | None
    category_scores: dict[str, int | None]
    best: int  # rounds it alone is best in
    shared: int  # rounds it shares the best in
    weighted: int  # Σ weights of the rounds it is best in, alone or shared
    ranged: scoring.Ranged | None = None  # its PA Score with its range, for who leads


@dataclass
class ManyComparison:
    products: list[Product]  # the columns, in the order asked
    summary: scoring.ManySummary
    standings: dict[Product, Standing]  # in column order
    categories: list[str]  # the categories' names in matrix order (the score table's rows)
    rows: list[ManyRow]  # every round, in matrix order
    blocks: list[CategoryBlock]  # the rounds shown under their category and sub-group headings
    # each category's tally over all its rounds (shown or not), by the category's pk
    tallies: dict[int, scoring.ManySummary] = field(default_factory=dict)
    differences_only: bool = False  # drawn rounds are not shown
    shown: int = 0
    # the product that leads every other one here by the one rule (``scoring.pair_call`` on the
    # PA Score ranges); None: no product does, too close to call
    leader: Product | None = None

    @property
    def drawn(self) -> int:
        return self.summary.drawn

    @property
    def hidden(self) -> int:
        return len(self.rows) - self.shown

    @property
    def round_count(self) -> int:
        return len(self.rows)


def leads_all(standings: dict[Product, Standing]) -> Product | None:
    """The product that leads each of the others (``scoring.pair_call``), if one does."""
    ranged = {p: s.ranged or ranged_of(None, p.pk) for p, s in standings.items()}
    for p, mine in ranged.items():
        calls = (scoring.pair_call(mine, other) for q, other in ranged.items() if q != p)
        if all(c.leader == p.pk for c in calls):
            return p
    return None


def compare_many_get(
    *, arena: CountedArena, products: list[Product], differences_only: bool = False
) -> ManyComparison:
    """``products`` (two to six of ``arena``'s, as ``compare_pick`` found them) side by side: their
    stored PA and category scores, and a round per story where at least two of their cells apply,
    in matrix order, with its best products (``scoring.compare_many``). Three queries
    (stories, the products' cells, the stored scores), whatever the arena's size. With
    ``differences_only`` the blocks leave out the drawn rounds; the tallies count every round."""
    matrix = arena_matrix(arena=arena, products=products)
    keys = [p.pk for p in products]
    stories = [
        scoring.StoryIn(r.story.pk, r.story.weight, r.story.category.name, r.story.persona.slug)
        for r in matrix.rows
    ]
    summary = scoring.compare_many(
        stories, (cell_in(c) for r in matrix.rows for c in r.cells), keys
    )
    by_pk: dict[scoring.ProductKey, Product] = {p.pk: p for p in products}
    row_of = {r.story.pk: r for r in matrix.rows}
    rows = [
        ManyRow(row_of[r.story_id].story, row_of[r.story_id].cells, [by_pk[k] for k in r.best])
        for r in summary.rounds
    ]
    stored = {s.product_id: s for s in arena_score_list(arena=arena)}
    categories = list(dict.fromkeys(r.story.category.name for r in matrix.rows))
    standings = {}
    for p in products:
        score = stored.get(p.pk)
        mine = summary.standings[p.pk]
        standings[p] = Standing(
            product=p,
            pa_score=score.pa_score if score else None,
            category_scores=dict(score.category_scores) if score else {},
            best=mine.best,
            shared=mine.shared,
            weighted=mine.weighted,
            ranged=ranged_of(score, p.pk),
        )
    by_category: dict[int, list[scoring.ManyRound]] = {}
    for r in summary.rounds:
        by_category.setdefault(row_of[r.story_id].story.category_id, []).append(r)
    tallies = {pk: scoring.tally_many_rounds(rs, keys) for pk, rs in by_category.items()}
    shown = [r for r in rows if not r.drawn] if differences_only else rows
    return ManyComparison(
        products=list(products),
        summary=summary,
        standings=standings,
        categories=categories,
        rows=rows,
        blocks=matrix_block_list(rows=shown),
        tallies=tallies,
        differences_only=differences_only,
        shown=len(shown),
        leader=leads_all(standings),
    )
