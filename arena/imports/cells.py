"""The import of an arena's cells and their evidence: a changed cell is written through
``stories.services.cell_correct``; a moderated one keeps every part, and the report says so."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from django.db.models import Q
from django.utils import timezone

from arena.imports.records import CellDetail
from arena.imports.records import Evidence as EvidenceRecord
from arena.imports.run import ImportRun, day_text
from arena.models import Arena
from products.models import Product
from stories.corrections import KEEP, Imported
from stories.evidence import Quote, evidence_rows
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import cell_correct
from stories.values import CellValue

MODERATED = (CellChange.Kind.FLAG, CellChange.Kind.ADMIN)


def _moderated_changes(arena: Arena) -> dict[int, CellChange]:
    """The newest moderator or admin change of each cell of the arena that has one (one query)."""
    newest: dict[int, CellChange] = {}
    for change in (
        CellChange.objects.filter(cell__story__arena=arena, kind__in=MODERATED)
        .select_related("changed_by")
        .order_by("changed_at", "pk")
    ):
        newest[change.cell_id] = change
    return newest


def _quotes(items: Iterable, exact: bool) -> tuple:
    """Evidence items as the import compares them."""
    if exact:
        return tuple((e.source, e.quote, e.url or "", e.checked_on) for e in items)
    return tuple((e.source, e.quote) for e in items)


def _quotes_text(items: tuple) -> str:
    """``2 quotes: docs “Workflows pause…”, community “…”`` (a report's summary of evidence)."""
    if not items:
        return "no quotes"
    shown = ", ".join(f"{q[0]} “{q[1][:40]}{'…' if len(q[1]) > 40 else ''}”" for q in items[:3])
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return f"{len(items)} quote{'s' if len(items) != 1 else ''}: {shown}{more}"


@dataclass(frozen=True)
class _CellParts:
    """Every part of a cell an import compares: what a file or the pages state of it."""

    value: CellValue
    rationale: str
    published: bool
    quotes: tuple
    evidence_as_of: date | None  # compared for arena files only (the pages give one date)

    @classmethod
    def stated(cls, mark: CellValue, detail: CellDetail | None, *, exact: bool) -> _CellParts:
        """What the pages (or a file: ``exact``) state of a cell."""
        return cls(
            value=mark,
            rationale=detail.rationale if detail else "",
            published=detail is not None and detail.published,
            quotes=_quotes(detail.evidence if detail else (), exact),
            evidence_as_of=detail.evidence_as_of if detail else None,
        )

    @classmethod
    def held(cls, cell: Cell, *, exact: bool) -> _CellParts:
        """What the site holds of a cell."""
        return cls(
            value=CellValue.of(cell),
            rationale=cell.rationale,
            published=cell.detail_published,
            quotes=_quotes(cell.evidence.all(), exact),
            evidence_as_of=cell.evidence_as_of,
        )


def _differing(now: _CellParts, file: _CellParts, *, detailed: bool, exact: bool) -> list[str]:
    """The parts of a cell the file would change."""
    parts = ["value"] if now.value != file.value else []
    if detailed:
        if (now.rationale, now.published) != (file.rationale, file.published):
            parts.append("rationale")
        if now.quotes != file.quotes:
            parts.append("evidence")
        if exact and now.evidence_as_of != file.evidence_as_of:
            parts.append("date")
    return parts


@dataclass
class _Gathered:
    """What the cells step gathers for its statements over many cells."""

    new: list[tuple[Cell, tuple[EvidenceRecord, ...]]] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)  # kept as moderated: their dates stay
    # cells whose quotes the pages state again, as they are (the pages' date checks them)
    evidence_kept: list[int] = field(default_factory=list)


def import_cells(run: ImportRun) -> None:
    record, ov = run.record, run.record.overview
    existing = {
        (c.story_id, c.product_id): c
        for c in Cell.objects.filter(story__arena=run.arena)
        .select_for_update()
        .prefetch_related("evidence")
    }
    moderated = _moderated_changes(run.arena) if existing else {}
    gathered = _Gathered()
    for ms in ov.stories:
        story = run.stories[ms.text]
        for pname, mark in ms.cells:
            product = run.products[pname]
            detail = record.details.get((ms.text, pname))
            cell = existing.get((story.pk, product.pk))
            if cell is None:
                new = _new_cell(run, story, product, mark, detail)
                gathered.new.append((new, detail.evidence if detail else ()))
                continue
            where = f"{pname} on “{ms.text}”"
            _import_cell(run, gathered, cell, mark, detail, where, moderated.get(cell.pk))
    _store_new(run, gathered)
    if not record.exact and ov.evidence_as_of is not None:
        dated = _date_cells(run, ov.evidence_as_of, gathered.kept, gathered.evidence_kept)
        run.report.count("cell", "re-dated", dated)


def _new_cell(
    run: ImportRun, story: Story, product: Product, mark: CellValue, detail: CellDetail | None
) -> Cell:
    """A cell the arena did not hold (a new product or story, or one back beside retired rows)."""
    exact = run.record.exact
    return Cell(
        imported_at=timezone.now(),
        story=story,
        product=product,
        **mark.fields(),
        rationale=detail.rationale if detail else "",
        detail_published=detail is not None and detail.published,
        evidence_as_of=detail.evidence_as_of
        if exact and detail
        else run.record.overview.evidence_as_of,
    )


def _store_new(run: ImportRun, gathered: _Gathered) -> None:
    """The new cells and their quotes, in two statements."""
    Cell.objects.bulk_create(cell for cell, _ in gathered.new)
    run.report.count("cell", "added", len(gathered.new))
    run.report.count("evidence", "added", sum(1 for _, evidence in gathered.new if evidence))
    Evidence.objects.bulk_create(
        row
        for cell, evidence in gathered.new
        for row in evidence_rows(cell, _stated_quotes(run, evidence))
    )


def _stated_quotes(run: ImportRun, evidence: Iterable[EvidenceRecord]) -> list[Quote]:
    """The quotes as the pages state them, checked as of their "Evidence as of" date, or as an
    arena file states them (with its dates)."""
    exact, checked_on = run.record.exact, run.record.overview.evidence_as_of
    return [
        Quote(e.source, e.quote, e.url, e.checked_on if exact else checked_on) for e in evidence
    ]


def _import_cell(
    run: ImportRun,
    gathered: _Gathered,
    cell: Cell,
    mark: CellValue,
    detail: CellDetail | None,
    where: str,
    last: CellChange | None,
) -> None:
    """One cell the arena holds."""
    exact, path, report = run.record.exact, run.record.overview.path, run.report
    evidence = detail.evidence if detail else ()
    file = _CellParts.stated(mark, detail, exact=exact)
    now = _CellParts.held(cell, exact=exact)
    # pages that do not detail this cell leave its published detail alone
    detailed = detail is not None or not cell.detail_published
    parts = _differing(now, file, detailed=detailed, exact=exact)
    if not parts:
        if detail is not None:
            gathered.evidence_kept.append(cell.pk)
        return
    kind, note = CellChange.Kind.IMPORT, f"Imported from {path}"
    if cell.edited_since_import:
        override = _moderated_cell(run, cell, now, file, parts, where, last)
        if override is None:
            gathered.kept.append(cell.pk)
            return  # every part of the cell stays as moderated
        # recorded publicly even when only the words or the quotes change
        kind, note = CellChange.Kind.IMPORT_OVERRIDE, override
    cell_correct(
        cell=cell,
        value=file.value,
        kind=kind,
        note=note,
        expected_version=cell.version,
        imported=_imported(run, file, evidence, parts, detailed=detailed),
        record_unchanged=kind == CellChange.Kind.IMPORT_OVERRIDE,
        mark_arena=False,
    )
    if "value" in parts or "rationale" in parts:
        report.count("cell", "changed")
    if "date" in parts:
        report.count("cell", "re-dated")
    if "evidence" in parts:
        report.count("evidence", "changed")
    elif detail is not None:
        gathered.evidence_kept.append(cell.pk)


def _imported(
    run: ImportRun,
    file: _CellParts,
    evidence: tuple[EvidenceRecord, ...],
    parts: list[str],
    *,
    detailed: bool,
) -> Imported:
    """What the import writes of a cell beside its judgement."""
    return Imported(
        rationale=file.rationale if detailed else None,
        published=file.published,
        quotes=_stated_quotes(run, evidence) if "evidence" in parts else None,
        as_of=file.evidence_as_of if "date" in parts else KEEP,
    )


def _moderated_cell(
    run: ImportRun,
    cell: Cell,
    now: _CellParts,
    file: _CellParts,
    parts: list[str],
    where: str,
    last: CellChange | None,
) -> str | None:
    """A moderated cell's differing parts reported: kept (None), or told to, the override's note."""
    report = run.report
    day = day_text(cell.edited_at)
    lines = []
    for part in parts:
        if part == "value":
            kind = last.get_kind_display() if last is not None else "moderated"
            lines.append(
                f"{kind} value {now.value.label()} of {where} ({day}; {run.says} "
                f"{file.value.label()})"
            )
        elif part == "rationale":
            lines.append(f"edited rationale of {where} ({day}; the {run.says[:-5]}'s differs)")
        elif part == "evidence":
            lines.append(
                f"moderated evidence on {where} ({day}: {_quotes_text(now.quotes)}; "
                f"{run.says} {_quotes_text(file.quotes)})"
            )
    if not run.overwrite:
        if lines:  # (none: the decision's own date alone differs, nothing to report)
            report.kept.extend(f"kept {line}" for line in lines)
            report.count("cell", "kept")
            if "evidence" in parts:
                report.count("evidence", "kept")
        return None
    report.overwritten.extend(f"overwrote {line}" for line in lines)
    what = f"the {last.get_kind_display()} value" if last else "the moderated"
    return (
        f"Imported from {run.record.overview.path} over {what} {now.value.label()} "
        f"({', '.join(parts)}) of {day_text(cell.edited_at)}"
    )


def _date_cells(run: ImportRun, day: date, kept: list[int], evidence_kept: list[int]) -> int:
    """Cells (but kept ones) and detailed quotes checked as of ``day``, never back; how many moved."""
    older = Q(evidence_as_of__isnull=True) | Q(evidence_as_of__lt=day)
    cells = (
        Cell.objects.filter(
            story__in=[s.pk for s in run.stories.values()],
            product__in=[p.pk for p in run.products.values()],
        )
        .filter(older)
        .exclude(pk__in=kept)
        .update(evidence_as_of=day)
    )
    quotes = 0
    if evidence_kept:
        quotes = (
            Evidence.objects.filter(cell_id__in=evidence_kept)
            .filter(Q(checked_on__isnull=True) | Q(checked_on__lt=day))
            .update(checked_on=day)
        )
    return cells or (1 if quotes else 0)
