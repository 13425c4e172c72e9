"""The page importer's parser: published page dumps in, plain records out (see docs/importing.md)."""

from arena.importer.parser import (
    AdjacentRecord,
    ArenaRecord,
    CategoryRecord,
    CellDetail,
    CellMark,
    ComparePage,
    CompareStory,
    Evidence,
    LeaderboardRow,
    MatrixStory,
    OverviewPage,
    PageError,
    PersonaWinner,
    parse_files,
    read_arena,
    read_lines,
)

__all__ = [
    "AdjacentRecord",
    "ArenaRecord",
    "CategoryRecord",
    "CellDetail",
    "CellMark",
    "ComparePage",
    "CompareStory",
    "Evidence",
    "LeaderboardRow",
    "MatrixStory",
    "OverviewPage",
    "PageError",
    "PersonaWinner",
    "parse_files",
    "read_arena",
    "read_lines",
]
