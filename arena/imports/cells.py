"""The import of an arena's cells and their evidence: a changed cell is written through
``stories.services.cell_correct``; a moderated one keeps every part, and the report says so."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import date
from typing import Any

from django.db.models import Q
from django.utils import timezone

from arena.imports.reading import CellDetail
from arena.imports.run import ImportRun, day_text
from stories.models import Cell, CellChange, Evidence
from stories.services import KEEP, Imported, cell_correct, evidence_rows
from stories.values import CellValue, Quote


def import_cells(run: ImportRun) -> None:
    record, ov = run.record, run.record.overview
    cells = Cell.objects.filter(story__arena=run.arena).select_for_update()
    existing = {(c.story_id, c.product_id): c for c in cells.prefetch_related("evidence")}
    # the newest moderator or admin change of each cell that has one
    kinds = (CellChange.Kind.FLAG, CellChange.Kind.ADMIN)
    changes = CellChange.objects.filter(cell__story__arena=run.arena, kind__in=kinds)
    moderated = {change.cell_id: change for change in changes.order_by("changed_at", "pk")}
    new: list[tuple[Cell, tuple[Quote, ...]]] = []
    # kept as moderated (their dates stay), and those whose quotes the pages state again
    outcomes: dict[str, list[int]] = {"kept": [], "evidence": []}
    for ms in ov.stories:
        for pname, mark in ms.cells:
            story, product = run.stories[ms.text], run.products[pname]
            detail = record.details.get((ms.text, pname))
            cell = existing.get((story.pk, product.pk))
            if cell is None:  # a new product or story, or one back beside retired rows
                d = detail or CellDetail(pname, mark, "", (), 0, published=False)
                new_cell = Cell(
                    imported_at=timezone.now(),
                    story=story,
                    product=product,
                    **mark.fields(),
                    rationale=d.rationale,
                    detail_published=d.published,
                    evidence_as_of=d.evidence_as_of if record.exact else ov.evidence_as_of,
                )
                new.append((new_cell, _quotes_of(run, detail)))
                continue
            where = f"{pname} on “{ms.text}”"
            if outcome := _import_cell(run, cell, mark, detail, where, moderated.get(cell.pk)):
                outcomes[outcome].append(cell.pk)
    Cell.objects.bulk_create(cell for cell, _ in new)
    run.count("cell", "added", len(new))
    run.count("evidence", "added", sum(1 for _, quotes in new if quotes))
    Evidence.objects.bulk_create(row for cell, quotes in new for row in evidence_rows(cell, quotes))
    if not record.exact and ov.evidence_as_of is not None:
        run.count("cell", "re-dated", _date_cells(run, ov.evidence_as_of, **outcomes))


def _quotes_of(run: ImportRun, detail: CellDetail | None) -> tuple[Quote, ...]:
    """The quotes as a file states them, or the pages' checked as of their evidence date."""
    quotes, day = detail.evidence if detail else (), run.record.overview.evidence_as_of
    return quotes if run.record.exact else tuple(replace(q, checked_on=day) for q in quotes)


def _parts(
    value: CellValue, rationale: str, published: bool, quotes: Iterable, as_of: Any, exact: bool
) -> dict[str, Any]:
    """Every part of a cell an import compares (a page states a quote's source and words only)."""
    said = tuple(
        (e.source, e.quote, e.url or "", e.checked_on)[: 4 if exact else 2] for e in quotes
    )
    return {"value": value, "rationale": (rationale, published), "evidence": said, "date": as_of}


def _quotes_text(items: tuple) -> str:
    """``2 quotes: docs “Workflows pause…”, community “…”``"""
    if not items:
        return "no quotes"
    shown = ", ".join(f"{q[0]} “{q[1][:40]}{'…' if len(q[1]) > 40 else ''}”" for q in items[:3])
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return f"{len(items)} quote{'s' if len(items) != 1 else ''}: {shown}{more}"


def _import_cell(
    run: ImportRun,
    cell: Cell,
    mark: CellValue,
    detail: CellDetail | None,
    where: str,
    last: CellChange | None,
) -> str | None:
    """A held cell: ``"kept"`` when kept as moderated, ``"evidence"`` when its quotes are restated."""
    exact = run.record.exact
    d = detail or CellDetail("", mark, "", (), 0, published=False)
    file = _parts(mark, d.rationale, d.published, d.evidence, d.evidence_as_of, exact)
    held = (cell.rationale, cell.detail_published, cell.evidence.all(), cell.evidence_as_of)
    now = _parts(CellValue.of(cell), *held, exact)
    # pages not detailing this cell leave its detail alone; only arena files give each cell a date
    detailed = detail is not None or not cell.detail_published
    compared = ["value", *(["rationale", "evidence"] if detailed else [])]
    compared += ["date"] if detailed and exact else []
    parts = [part for part in compared if now[part] != file[part]]
    stated_again = "evidence" if detail is not None else None
    if not parts:
        return stated_again
    kind, note = CellChange.Kind.IMPORT, f"Imported from {run.record.overview.path}"
    if cell.edited_since_import:
        override = _moderated_cell(run, day_text(cell.edited_at), now, file, parts, where, last)
        if override is None:
            return "kept"  # every part of the cell stays as moderated
        # recorded publicly even when only the words or the quotes change
        kind, note = CellChange.Kind.IMPORT_OVERRIDE, override
    cell_correct(
        cell=cell,
        value=mark,
        kind=kind,
        note=note,
        expected_version=cell.version,
        imported=Imported(
            rationale=file["rationale"][0] if detailed else None,
            published=file["rationale"][1],
            quotes=_quotes_of(run, detail) if "evidence" in parts else None,
            as_of=file["date"] if "date" in parts else KEEP,
        ),
        record_unchanged=kind == CellChange.Kind.IMPORT_OVERRIDE,
        mark_arena=False,
    )
    if "value" in parts or "rationale" in parts:
        run.count("cell", "changed")
    if "date" in parts:
        run.count("cell", "re-dated")
    if "evidence" in parts:
        run.count("evidence", "changed")
        return None
    return stated_again


def _moderated_cell(
    run: ImportRun, day: str, now: dict, file: dict, parts: list, at: str, last: CellChange | None
) -> str | None:
    """A moderated cell's differing parts reported: kept (None), or told to, the override's note."""
    lines = []
    if "value" in parts:
        kind = last.get_kind_display() if last is not None else "moderated"
        said = f"{run.says} {file['value'].label()}"
        lines.append(f"{kind} value {now['value'].label()} of {at} ({day}; {said})")
    if "rationale" in parts:
        lines.append(f"edited rationale of {at} ({day}; the {run.says[:-5]}'s differs)")
    if "evidence" in parts:
        said = f"{_quotes_text(now['evidence'])}; {run.says} {_quotes_text(file['evidence'])}"
        lines.append(f"moderated evidence on {at} ({day}: {said})")
    if not run.overwrite:
        if lines:  # (none: the decision's own date alone differs, nothing to report)
            run.kept.extend(f"kept {line}" for line in lines)
            run.count("cell", "kept")
            if "evidence" in parts:
                run.count("evidence", "kept")
        return None
    run.overwritten.extend(f"overwrote {line}" for line in lines)
    what = f"the {last.get_kind_display()} value" if last else "the moderated"
    over = f"over {what} {now['value'].label()} ({', '.join(parts)}) of {day}"
    return f"Imported from {run.record.overview.path} {over}"


def _date_cells(run: ImportRun, day: date, kept: list[int], evidence: list[int]) -> int:
    """Cells (but kept ones) and detailed quotes checked as of ``day``, never back; how many moved."""
    cells = (
        Cell.objects.filter(story__in=run.stories.values(), product__in=run.products.values())
        .filter(Q(evidence_as_of__isnull=True) | Q(evidence_as_of__lt=day))
        .exclude(pk__in=kept)
        .update(evidence_as_of=day)
    )
    quotes = (
        Evidence.objects.filter(cell_id__in=evidence)
        .filter(Q(checked_on__isnull=True) | Q(checked_on__lt=day))
        .update(checked_on=day)
    )
    return cells or (1 if quotes else 0)
