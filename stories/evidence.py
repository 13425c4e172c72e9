"""A cell's evidence quotes as stored (``stories.services`` writes them under the cell's lock)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.core.exceptions import ValidationError

from core.text import clean_text
from stories import freshness
from stories.models import Cell, Evidence


@dataclass(frozen=True)
class Quote:
    source: str
    quote: str
    url: str = ""
    checked_on: date | None = None  # None: today


EVIDENCE_FIELDS = ("source", "quote", "url")


def evidence_errors(evidence: Evidence) -> dict[str, list[str]]:
    try:
        evidence.full_clean(exclude=["cell", "position", "checked_on"], validate_unique=False)
    except ValidationError as exc:
        return exc.message_dict
    return {}


def evidence_new(quote: Quote) -> Evidence:
    """A moderator's or an editor's quote as stored; ValidationError per field."""
    evidence = Evidence(
        source=clean_text(quote.source).strip(),
        quote=clean_text(quote.quote).strip(),
        url=(quote.url or "").strip(),
        checked_on=quote.checked_on or freshness.today(),
    )
    errors = evidence_errors(evidence)
    if errors:
        raise ValidationError(errors)
    return evidence


def evidence_rows(cell: Cell, quotes: Iterable[Quote], *, start: int = 0) -> list[Evidence]:
    """An import's or the generator's quotes as rows of the cell, not yet stored."""
    return [
        Evidence(
            cell=cell,
            position=position,
            source=q.source,
            quote=q.quote,
            url=q.url,
            checked_on=q.checked_on,
        )
        for position, q in enumerate(quotes, start=start)
    ]


def evidence_insert(cell_id: int, rows: list[Evidence]) -> list[Evidence]:
    last = Evidence.objects.filter(cell_id=cell_id).order_by("-position").first()
    for position, row in enumerate(rows, start=0 if last is None else last.position + 1):
        row.cell_id, row.position = cell_id, position
    if len(rows) == 1:  # (a single row saved as the admin saves it: its pk set on every database)
        rows[0].save()
        return rows
    return Evidence.objects.bulk_create(rows)


def evidence_checked_writes(
    as_of: date | None, days: Sequence[date | None], at: datetime
) -> dict[str, Any]:
    """Quotes checked on ``days``: the cell's date moves up and its detail is published."""
    return {
        "evidence_as_of": freshness.newest(as_of, *days),
        "detail_published": True,
        "edited_at": at,
    }
