"""A head-to-head's tables as ``arena/head_to_head.html`` draws them: a section per category, a row
per round, each round's two cards folded under its story (in the page, or loaded when opened)."""

from __future__ import annotations

from dataclasses import dataclass

from arena import scoring
from arena.selectors.head_to_head import CompareRow, Comparison
from arena.selectors.matrix import CategoryBlock
from web.pages import links
from web.pages.cards import Card, card
from web.pages.freshness import freshness_now


@dataclass(frozen=True)
class Round:
    row: CompareRow
    pk: int  # its story's
    side: str  # "draw", "win-a" or "win-b"
    published: bool  # either side's rationale and evidence are published
    inline: bool  # its cards are in the page (else they load when it is opened, from ``url``)
    opened: bool
    url: str


@dataclass(frozen=True)
class Section:
    block: CategoryBlock
    fold: str | None  # None: not folded; "": folded; " open": a fold that is open
    tally: scoring.CompareSummary | None  # over all its rounds, not only those shown
    groups: list[tuple[object, list[Round]]]  # each sub-group (or None) and its rounds


def _round(row: CompareRow, open_all: bool, lazy: str | None, opened: int | None) -> Round:
    pk = int(row.story.pk)
    winner = row.winner
    side = "draw" if winner is None else "win-a" if winner.pk == row.cell_a.product.pk else "win-b"
    is_open = open_all or pk == opened
    return Round(
        row=row,
        pk=pk,
        side=side,
        published=row.cell_a.detail_published or row.cell_b.detail_published,
        inline=lazy is None or is_open,
        opened=is_open,
        url=links.round_open_url(lazy, pk) if lazy else "",
    )


def _fold(index: int, block: CategoryBlock, lazy: str | None, opened: int | None) -> str | None:
    """A long head-to-head (``lazy``) shows its first category's rounds and the one holding the
    round ``opened``; the others fold under their heading and tally (in the page, but neither
    styled nor laid out until opened, which keeps a phone's main thread free)."""
    if lazy is None:
        return None
    rows = (row for group in block.groups for row in group.rows)
    shown = index == 0 or any(int(row.story.pk) == opened for row in rows)
    return " open" if shown else ""


def head_to_head_sections(
    cmp: Comparison,
    open_all: bool = False,
    lazy: str | None = None,
    opened: int | None = None,
) -> list[Section]:
    """Every category of a head-to-head (``cmp.blocks``, the rounds shown). ``open_all``: every
    round unfolded; ``lazy``: the head-to-head's address when the rounds' cards are not in the page
    but load as a round is opened (``?open=<story>``), except the round ``opened``."""
    return [
        Section(
            block=block,
            fold=_fold(index, block, lazy, opened),
            tally=cmp.tallies.get(block.category.pk),
            groups=[
                (group.subgroup, [_round(row, open_all, lazy, opened) for row in group.rows])
                for group in block.groups
            ],
        )
        for index, block in enumerate(cmp.blocks)
    ]


def round_cards(row: CompareRow, cmp: Comparison) -> list[Card]:
    """One round's two cards, ``a``'s first."""
    now = freshness_now()
    sources = getattr(cmp, "sources", {})
    story = row.story.text
    return [
        card(row.cell_a, cmp.a.name, sources, story, now),
        card(row.cell_b, cmp.b.name, sources, story, now),
    ]
