"""All pages of an arena as one ``ArenaRecord``: the head-to-head pages checked against the overview
and against each other (the same story, persona label, weight and cell on every page, and rounds as
``arena.scoring`` decides them)."""

from __future__ import annotations

from collections.abc import Sequence

from arena import scoring
from arena.importer.cursor import PageError
from arena.importer.records import ArenaRecord, CellDetail, ComparePage, OverviewPage
from arena.text import persona_slug
from stories.values import Verdict


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
    products = set(overview.products)
    # each value with where it was first read ("FILE:LINE"), to name it when another page differs
    weights: dict[str, tuple[int, str]] = {}
    labels: dict[str, tuple[str, str]] = {}
    details: dict[tuple[str, str], tuple[CellDetail, str]] = {}
    for page in compares:
        for product in (page.a, page.b):
            if product not in products:
                raise PageError(
                    page.path,
                    1,
                    f"{product!r} is not a product of the arena {overview.name!r} "
                    f"({', '.join(overview.products)})",
                )
        if page.a == page.b:
            raise PageError(page.path, 1, "a head-to-head page compares a product with itself")
        for cs in page.stories:
            where = f"{page.path}:{cs.line}"
            story = stories.get(cs.text)
            if story is None:
                raise PageError(
                    page.path, cs.line, f"story {cs.text[:70]!r} is not in the arena's matrix"
                )
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
            label, at = labels.setdefault(story.persona, (cs.persona_label, where))
            if label != cs.persona_label:
                raise PageError(
                    page.path,
                    cs.line,
                    f"persona label {cs.persona_label!r} differs from {label!r} at {at}",
                )
            weight, at = weights.setdefault(cs.text, (cs.weight, where))
            if weight != cs.weight:
                raise PageError(
                    page.path,
                    cs.line,
                    f"weight {cs.weight} differs from weight {weight} at {at}",
                )
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
                seen, at = details.setdefault(
                    (cs.text, cell.product), (cell, f"{page.path}:{cell.line}")
                )
                if (seen.rationale, seen.evidence) != (cell.rationale, cell.evidence):
                    raise PageError(
                        page.path,
                        cell.line,
                        f"{cell.product}'s cell differs from the same cell at {at}",
                    )
            a, b = (scoring.CellIn.of(c.value, story_id=0, product=c.product) for c in cs.cells)
            if a.verdict == Verdict.NA or b.verdict == Verdict.NA:
                raise PageError(
                    page.path, cs.line, "a head-to-head lists no story where one side is n/a"
                )
            expected = scoring.round_winner(a, b)
            if expected != cs.round:
                said = scoring.DRAWN if cs.round == scoring.DRAWN else f"to {cs.round}"
                rule = scoring.DRAWN if expected == scoring.DRAWN else f"to {expected}"
                raise PageError(
                    page.path, cs.line, f"the page says round {said}, the rules give round {rule}"
                )
    return ArenaRecord(
        overview=overview,
        compares=tuple(compares),
        weights={k: v[0] for k, v in weights.items()},
        persona_labels={k: v[0] for k, v in labels.items()},
        details={k: v[0] for k, v in details.items()},
    )
