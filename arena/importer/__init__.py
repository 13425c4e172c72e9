"""Pure parser of published arena page dumps into plain records.

No ORM in here: the parser turns text into frozen dataclasses and reports every problem as
``FILE:LINE: reason`` (``PageError``). The import service (``arena.importing.service.arena_import``) writes the
records in one transaction.

What the parser returns is what the database accepts: every text fits its model field's
``max_length`` (read from the field), every number fits its column, names give non-empty slugs and no
two products, categories, sub-groups of a category, stories or adjacent arenas are alike. Control
characters are dropped as the lines are read (``arena.text.clean_text``), so nothing stored can break
the Atom feed. ``tests/arena/test_import_fuzz.py`` checks this on mutated seed pages.

One job per module:

* ``cursor``: a page's lines and the line being read (``Cursor``), and ``PageError``;
* ``limits``: what the database can store (field lengths and ranges read from the models);
* ``records``: the frozen records the parser returns;
* ``overview``: the arena overview page (title line ``<Name> arena<Name>``, the "N user stories · M
  judged cells" line, leaderboard, best by user type, story matrix, legend, adjacent arenas);
* ``compare``: a head-to-head page (title line ``A vs B``) listing stories with both products' cells
  in detail;
* ``merge``: the pages checked against each other, as one ``ArenaRecord``;
* ``read``: reading the files (``read_lines``, ``parse_files``, ``read_arena``);
* ``json_file`` and ``arena_json``: an arena file (``arena.dataformat``) read and checked as a
  JSON document, then as the ``ArenaRecord`` it states (``read_arena_json``).

A cell's judgement is read and checked by ``stories.values.CellValue``.
"""

from arena.importer.cursor import PageError
from arena.importer.read import parse_files, read_arena, read_lines
from arena.importer.records import (
    AdjacentRecord,
    ArenaRecord,
    CategoryRecord,
    CellDetail,
    ComparePage,
    CompareStory,
    Evidence,
    LeaderboardRow,
    MatrixStory,
    OverviewPage,
    PersonaWinner,
)

__all__ = [
    "AdjacentRecord",
    "ArenaRecord",
    "CategoryRecord",
    "CellDetail",
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
