"""What a correction of a cell writes beside the lock and the record (``stories.services``)."""

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

# a moderator's or an editor's: the cell is checked that day, and theirs until an import
JUDGED_ON_THE_DAY = frozenset({CellChange.Kind.ADMIN, CellChange.Kind.FLAG})


class _Keep(Enum):
    KEEP = "keep"


KEEP = _Keep.KEEP  # ``Imported.as_of``: the cell's date stays


@dataclass(frozen=True)
class Imported:
    """What an import writes of a cell beside its judgement (None: kept as it is)."""

    rationale: str | None = None
    published: bool = False
    quotes: Sequence[Quote] | None = None
    as_of: date | None | Literal[_Keep.KEEP] = KEEP


def judgement_writes(current: Cell, new: CellValue, *, kind: str, at: datetime) -> dict[str, Any]:
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
    """A new rationale (None: kept) and its marks: written with an upheld flag it is marked
    rewritten; kept by one that moved the verdict or quality it predates it (the first such)."""
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
    # (a clock set back: the database refuses a rewrite after the mark)
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
    """What an import writes beside the judgement; an import over a moderated cell takes it up."""
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
