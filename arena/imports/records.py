"""What both readers return and the service writes: plain frozen records."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from stories.values import CellValue, Quote


@dataclass(frozen=True)
class MatrixStory:
    text: str
    persona: str
    category: str
    group: str | None
    cells: tuple[tuple[str, CellValue], ...]  # (product name, value) in column order
    line: int


@dataclass(frozen=True)
class CategoryRecord:
    name: str
    blurb: str
    groups: tuple[str | None, ...]


@dataclass(frozen=True)
class LeaderboardRow:
    """What the pages publish of a product's standing (the scores are computed again; tests
    compare them with these)."""

    product: str
    vs: str
    verified: int
    with_evidence: int
    disputed: int


@dataclass(frozen=True)
class PersonaWinner:
    persona: str
    winner: str
    score: int
    runner_up: str | None
    runner_up_score: int | None
    story_count: int


@dataclass(frozen=True)
class AdjacentRecord:
    name: str
    product_count: int
    leader: str
    shares: str | None


@dataclass(frozen=True)
class OverviewPage:
    path: str
    name: str
    description: str
    story_count: int
    cell_count: int
    updated: date
    evidence_as_of: date
    products: tuple[str, ...]
    leaderboard: tuple[LeaderboardRow, ...]
    personas: tuple[PersonaWinner, ...]
    categories: tuple[CategoryRecord, ...]
    stories: tuple[MatrixStory, ...]
    adjacent: tuple[AdjacentRecord, ...]


@dataclass(frozen=True)
class CellDetail:
    product: str
    value: CellValue
    rationale: str
    evidence: tuple[Quote, ...]
    line: int
    # an arena file states every cell: whether its rationale is published, and when its evidence
    # was last checked
    published: bool = True
    evidence_as_of: date | None = None


@dataclass(frozen=True)
class CompareStory:
    number: int
    group: str | None
    persona_label: str
    text: str
    weight: int
    round: str  # product name or arena.scoring.DRAWN
    cells: tuple[CellDetail, CellDetail]
    line: int


@dataclass(frozen=True)
class ComparePage:
    path: str
    a: str
    b: str
    stories: tuple[CompareStory, ...]


@dataclass(frozen=True)
class ArenaRecord:
    overview: OverviewPage
    compares: tuple[ComparePage, ...]
    weights: dict[str, int]  # story text → weight, for the stories some page weighs
    persona_labels: dict[str, str]  # persona slug → label used by the head-to-head pages
    details: dict[tuple[str, str], CellDetail]  # (story text, product name) → detail
    products: dict[str, dict[str, Any]]  # by name: the model fields' values
    # An arena file states more than the pages: its slug, every cell in full (``exact``: the
    # import writes those as they are) and the source list (None: left alone).
    slug: str | None = None
    exact: bool = False
    sources: tuple[dict[str, Any], ...] | None = None  # the Source rows' values
