"""Page dumps read from files and checked against one another into one ``ArenaRecord``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena import scoring
from arena.imports.compare import parse_compare
from arena.imports.cursor import PageError, read_text
from arena.imports.overview import is_overview, parse_overview
from arena.imports.records import (
    ArenaRecord,
    CellDetail,
    ComparePage,
    CompareStory,
    MatrixStory,
    OverviewPage,
)
from core.text import clean_text, persona_slug
from stories.values import Verdict


def read_lines(path: str | Path) -> list[str]:
    """The file's lines (split at \\n only, so line numbers are what an editor shows), each cleaned
    by ``core.text.clean_text``: a CRLF line end, control characters and a byte order mark go."""
    text = read_text(str(path))
    return [clean_text(ln).replace("\n", "") for ln in text.split("\n")]


def parse_files(paths: Sequence[str | Path]) -> tuple[OverviewPage, list[ComparePage]]:
    """Parse one overview page and any number of head-to-head pages, in any order."""
    loaded = []
    for p in paths:
        lines = read_lines(p)
        if not any(ln.strip() for ln in lines):
            raise PageError(str(p), 1, "file is empty")
        loaded.append((str(p), lines))
    overviews = [(p, ls) for p, ls in loaded if is_overview(ls)]
    if not overviews:
        raise PageError(
            loaded[0][0] if loaded else "-", 1, "no arena overview page among the files"
        )
    if len(overviews) > 1:
        raise PageError(
            overviews[1][0], 1, f"a second arena overview page (first: {overviews[0][0]})"
        )
    overview = parse_overview(*overviews[0])
    texts = [s.text for s in overview.stories]
    compares = [
        parse_compare(p, ls, texts, overview.products) for p, ls in loaded if not is_overview(ls)
    ]
    return overview, compares


def read_arena(paths: Sequence[str | Path]) -> ArenaRecord:
    """The arena the page dumps at ``paths`` publish, every page checked; else a ``PageError``."""
    overview, compares = parse_files(paths)
    return merge_pages(overview, compares)


def label_matches(label: str, persona: str) -> bool:
    """Whether a head-to-head page's persona label names the matrix's persona slug."""
    norm = persona_slug(label)
    if norm == persona:
        return True
    # "ai-native user" names the persona "ai-native": one trailing word may qualify the slug
    return norm.startswith(persona + "-") and "-" not in norm[len(persona) + 1 :]


def merge_pages(overview: OverviewPage, compares: Sequence[ComparePage]) -> ArenaRecord:
    """Check the head-to-head pages against the overview and against each other."""
    stories = {s.text: s for s in overview.stories}
    # each value with where it was first read ("FILE:LINE"), to name it when another page differs
    weights: dict[str, tuple[int, str]] = {}
    labels: dict[str, tuple[str, str]] = {}
    details: dict[tuple[str, str], tuple[CellDetail, str]] = {}
    for page in compares:
        _check_pair(page, overview)
        for cs in page.stories:
            story = _matrix_story(page, cs, stories)
            where = f"{page.path}:{cs.line}"
            if other := _differs(labels, story.persona, cs.persona_label, where):
                raise PageError(
                    page.path,
                    cs.line,
                    f"persona label {cs.persona_label!r} differs from {other[0]!r} at {other[1]}",
                )
            if first := _differs(weights, cs.text, cs.weight, where):
                raise PageError(
                    page.path,
                    cs.line,
                    f"weight {cs.weight} differs from weight {first[0]} at {first[1]}",
                )
            _check_cells(page, cs, story, overview, details)
            _check_round(page, cs)
    return ArenaRecord(
        overview=overview,
        compares=tuple(compares),
        weights={k: v[0] for k, v in weights.items()},
        persona_labels={k: v[0] for k, v in labels.items()},
        details={k: v[0] for k, v in details.items()},
    )


def _differs[T](
    first: dict[str, tuple[T, str]], key: str, value: T, where: str
) -> tuple[T, str] | None:
    """The first value read under ``key`` and where, when ``value`` differs from it; else None."""
    seen, at = first.setdefault(key, (value, where))
    return None if seen == value else (seen, at)


def _check_pair(page: ComparePage, overview: OverviewPage) -> None:
    """Two products of the arena, not one twice."""
    for product in (page.a, page.b):
        if product not in overview.products:
            raise PageError(
                page.path,
                1,
                f"{product!r} is not a product of the arena {overview.name!r} "
                f"({', '.join(overview.products)})",
            )
    if page.a == page.b:
        raise PageError(page.path, 1, "a head-to-head page compares a product with itself")


def _matrix_story(
    page: ComparePage, cs: CompareStory, stories: dict[str, MatrixStory]
) -> MatrixStory:
    """The matrix's story that a round is about, under the same group and persona."""
    story = stories.get(cs.text)
    if story is None:
        raise PageError(page.path, cs.line, f"story {cs.text[:70]!r} is not in the arena's matrix")
    if cs.group != story.group and story.group is not None:
        raise PageError(
            page.path,
            cs.line,
            f"story is listed under {cs.group!r}, the matrix has {story.group!r}",
        )
    if not label_matches(cs.persona_label, story.persona):
        raise PageError(
            page.path,
            cs.line,
            f"persona {cs.persona_label!r} does not match the matrix's {story.persona!r}",
        )
    return story


def _check_cells(
    page: ComparePage,
    cs: CompareStory,
    story: MatrixStory,
    overview: OverviewPage,
    details: dict[tuple[str, str], tuple[CellDetail, str]],
) -> None:
    """A round's cells: the matrix's values, and the same detail as on every other page."""
    marks = dict(story.cells)
    for cell in cs.cells:
        mark = marks[cell.product]
        if mark != cell.value:
            raise PageError(
                page.path,
                cell.line,
                f"{cell.product}: {cell.value.label()} disagrees with the matrix "
                f"({mark.label()}, {overview.path}:{story.line})",
            )
        seen, at = details.setdefault((cs.text, cell.product), (cell, f"{page.path}:{cell.line}"))
        if (seen.rationale, seen.evidence) != (cell.rationale, cell.evidence):
            raise PageError(
                page.path, cell.line, f"{cell.product}'s cell differs from the same cell at {at}"
            )


def _check_round(page: ComparePage, cs: CompareStory) -> None:
    """The round's outcome as the rules decide it (``scoring.round_winner``), neither side n/a."""
    a, b = (scoring.CellIn.of(c.value, story_id=0, product=c.product) for c in cs.cells)
    if a.verdict == Verdict.NA or b.verdict == Verdict.NA:
        raise PageError(page.path, cs.line, "a head-to-head lists no story where one side is n/a")
    expected = scoring.round_winner(a, b)
    if expected != cs.round:
        said = scoring.DRAWN if cs.round == scoring.DRAWN else f"to {cs.round}"
        rule = scoring.DRAWN if expected == scoring.DRAWN else f"to {expected}"
        raise PageError(
            page.path, cs.line, f"the page says round {said}, the rules give round {rule}"
        )
