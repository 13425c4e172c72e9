"""What a correction of a cell writes, beside the lock and the record (``stories.services``
applies these under the cell's lock): the judgement, the rationale and its marks, and what an
import states of the cell. Functions of the cell as it is and of the correction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from typing import Any, Literal

from core.text import clean_text
from stories import freshness
from stories.evidence import Quote
from stories.models import Cell, CellChange
from stories.values import CellValue

# The kinds of change that are a moderator's or an editor's: they check the cell on the day they
# are made (stories/freshness.py), and the cell is theirs until an import writes over it.
JUDGED_ON_THE_DAY = frozenset({CellChange.Kind.ADMIN, CellChange.Kind.FLAG})


class _Keep(Enum):
    KEEP = "keep"


KEEP = _Keep.KEEP  # (``Imported.as_of``) the cell's date stays as it is


@dataclass(frozen=True)
class Imported:
    """What an import writes of a cell beside its judgement (the pages' or a file's statement).

    ``rationale`` with ``published``: pages that detail the cell (None: its detail stays);
    ``quotes``: the cell's quotes, replacing its own (None: they stay); ``as_of``: the date an
    arena file states the cell was checked on.
    """

    rationale: str | None = None
    published: bool = False
    quotes: Sequence[Quote] | None = None
    as_of: date | None | Literal[_Keep.KEEP] = KEEP


def judgement_writes(current: Cell, new: CellValue, *, kind: str, at: datetime) -> dict[str, Any]:
    """The judgement as written; a moderator's or an editor's checks the cell on the day it is
    made (an import dates its cells by the pages' "Evidence as of": arena.importing)."""
    write = new.fields()
    if kind in JUDGED_ON_THE_DAY:
        write["evidence_as_of"] = freshness.newest(current.evidence_as_of, freshness.today())
        write["edited_at"] = at
    return write


def rationale_writes(
    current: Cell,
    rationale: str | None,
    old: CellValue,
    new: CellValue,
    *,
    at: datetime,
    corrected: bool,
) -> dict[str, Any]:
    """A moderator's or an editor's rationale (None: kept), and its marks: a rationale written
    anew predates no correction; written with an upheld flag (``corrected``) it is marked
    rewritten with it, even when the moderator kept the words (they confirmed it argues for the
    corrected verdict); kept by an upheld flag that changed the verdict or the quality, it argues
    for the earlier judgement and is marked as written before the correction (unless it already
    predates an earlier one: the mark names the first)."""
    write: dict[str, Any] = {}
    if rationale is not None:
        rationale = clean_text(rationale)
        if rationale != current.rationale:
            write.update(rationale=rationale, detail_edited_at=at, edited_at=at)
            write["rationale_predates"] = None
        if corrected:
            write.update(rationale_predates=None, rationale_rewritten_at=at)
        return write
    kept_judgement = (old.verdict, old.quality) == (new.verdict, new.quality)
    # (a rationale rewritten with a later correction, as a clock set back could make it,
    # predates nothing older: the database refuses that mark)
    rewritten_later = (
        current.rationale_rewritten_at is not None and current.rationale_rewritten_at >= at
    )
    if (
        corrected
        and not kept_judgement
        and current.rationale_predates is None
        and not rewritten_later
    ):
        write["rationale_predates"] = at
    return write


def imported_writes(
    current: Cell, imported: Imported, *, moved: bool, kind: str, at: datetime
) -> dict[str, Any]:
    """What an import writes beside the judgement. The pages' rationale beside the pages'
    judgement predates no correction, and is no longer a correction's words once it differs; an
    import over a moderated cell takes it up (``imported_at``). The cell's version moves on even
    when nothing else of it does (its quotes or its date changed): a form opened before the import
    is stale after it."""
    write: dict[str, Any] = {"imported_at": at} if kind == CellChange.Kind.IMPORT_OVERRIDE else {}
    if imported.rationale is not None:
        reworded = imported.rationale != current.rationale
        write.update(rationale=imported.rationale, detail_published=imported.published)
        if reworded or moved:
            write["rationale_predates"] = None
        if reworded:
            write["rationale_rewritten_at"] = None
    if imported.as_of is not KEEP:
        write["evidence_as_of"] = imported.as_of
    return write
