"""Page dumps (overview: ``overview``; head-to-heads: here) checked into one ``ArenaRecord``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from arena.imports.overview import is_overview, parse_overview
from arena.imports.reading import (
    ArenaRecord,
    CellDetail,
    ComparePage,
    CompareStory,
    Cursor,
    PageError,
    read_text,
)
from arena.scoring.rounds import DRAWN, round_winner
from arena.scoring.tally import CellIn
from core.text import clean_text, heading_name, persona_slug
from stories.values import CellValue, Proof, Quote, Verdict, parse_quality

_STORY_RE = re.compile(r"([0-9]+)\. (.+)")
_WEIGHT_RE = re.compile(r"weight ([0-9]+) · (?:round to (.+)|round (drawn))")
# after the product's name: ``✓fullcommunity9/10``, ``—none0/10``
_JUDGEMENT_RE = re.compile(
    rf"(\S)([a-z/]+?)({'|'.join(re.escape(p) for p in Proof.values)})?([0-9]+/10)?"
)
_EVIDENCE_RE = re.compile(r"• \[([a-z0-9-]+)\] “(.*)”")
_CELL_END = ("proof ↗⚑ flag", "⚑ flag")


def read_arena(paths: Sequence[str | Path]) -> ArenaRecord:
    """One overview page and any head-to-head pages, checked together; else a ``PageError``."""
    loaded: dict[str, list[str]] = {}
    for p in map(str, paths):
        # split at \n only (an editor's line numbers); CRLF, control characters and a BOM go
        loaded[p] = [clean_text(ln).replace("\n", "") for ln in read_text(p).split("\n")]
        if not any(ln.strip() for ln in loaded[p]):
            raise PageError(p, 1, "file is empty")
    if not (overviews := [p for p, lines in loaded.items() if is_overview(lines)]):
        raise PageError(next(iter(loaded), "-"), 1, "no arena overview page among the files")
    if len(overviews) > 1:
        raise PageError(overviews[1], 1, f"a second arena overview page (first: {overviews[0]})")
    overview, products = parse_overview(overviews[0], loaded.pop(overviews[0]))
    stories = {s.text: s for s in overview.stories}
    compares = [parse_compare(p, ls, list(stories), overview.products) for p, ls in loaded.items()]
    # each value with where it was first read ("FILE:LINE"), to name it when another page differs
    weights: dict[str, tuple[int, str]] = {}
    labels: dict[str, tuple[str, str]] = {}
    details: dict[tuple[str, str], tuple[CellDetail, str]] = {}
    for page in compares:
        for cs in page.stories:
            # the matrix's story, its group, persona, label and weight agreeing with every page
            label, where, story = cs.persona_label, f"{page.path}:{cs.line}", stories.get(cs.text)
            problem = ""
            if story is None:
                problem = f"story {cs.text[:70]!r} is not in the arena's matrix"
            elif cs.group != story.group and story.group is not None:
                problem = f"story is listed under {cs.group!r}, the matrix has {story.group!r}"
            elif not re.fullmatch(rf"{re.escape(story.persona)}(-[^-]+)?", persona_slug(label)):
                # (one word may follow: "ai-native user")
                problem = f"persona {label!r} does not match the matrix's {story.persona!r}"
            elif (first := labels.setdefault(story.persona, (label, where)))[0] != label:
                problem = f"persona label {label!r} differs from {first[0]!r} at {first[1]}"
            elif (weight := weights.setdefault(cs.text, (cs.weight, where)))[0] != cs.weight:
                problem = f"weight {cs.weight} differs from weight {weight[0]} at {weight[1]}"
            if problem or story is None:
                raise PageError(page.path, cs.line, problem)
            for cell in cs.cells:
                if (mark := dict(story.cells)[cell.product]) != cell.value:
                    matrix = f"the matrix ({mark.label()}, {overview.path}:{story.line})"
                    said = f"{cell.product}: {cell.value.label()} disagrees with {matrix}"
                    raise PageError(page.path, cell.line, said)
                here = f"{page.path}:{cell.line}"
                seen, at = details.setdefault((cs.text, cell.product), (cell, here))
                if (seen.rationale, seen.evidence) != (cell.rationale, cell.evidence):
                    said = f"{cell.product}'s cell differs from the same cell at {at}"
                    raise PageError(page.path, cell.line, said)
            _check_round(page, cs)
    return ArenaRecord(
        overview=overview,
        compares=tuple(compares),
        weights={k: v[0] for k, v in weights.items()},
        persona_labels={k: v[0] for k, v in labels.items()},
        details={k: v[0] for k, v in details.items()},
        products=products,
    )


def _check_round(page: ComparePage, cs: CompareStory) -> None:
    """The round's outcome as the rules decide it (``round_winner``), neither side n/a."""
    a, b = (CellIn.of(c.value, story_id=0, product=c.product) for c in cs.cells)
    if a.verdict == Verdict.NA or b.verdict == Verdict.NA:
        raise PageError(page.path, cs.line, "a head-to-head lists no story where one side is n/a")
    if (expected := round_winner(a, b)) != cs.round:
        said = DRAWN if cs.round == DRAWN else f"to {cs.round}"
        rule = DRAWN if expected == DRAWN else f"to {expected}"
        reason = f"the page says round {said}, the rules give round {rule}"
        raise PageError(page.path, cs.line, reason)


def parse_compare(
    path: str, lines: list[str], story_texts: Sequence[str], products: Sequence[str]
) -> ComparePage:
    """A head-to-head page; ``story_texts`` split its "<persona label><story text>" lines (else
    the first capital letter does, and merging refuses the story)."""
    cur = Cursor(path, lines)
    if not (m := re.fullmatch(r"(.+) vs (.+)", cur.take().strip())):
        raise cur.error("first line should be 'A vs B'")
    a, b = m.group(1), m.group(2)
    for product in (a, b):
        if product not in products:
            raise cur.error(f"{product!r} is not a product of the arena ({', '.join(products)})")
    if a == b:
        raise cur.error("a head-to-head page compares a product with itself")
    texts = sorted(story_texts, key=len, reverse=True)
    stories: list[CompareStory] = []
    group: str | None = None
    while True:
        cur.skip_blank()
        if cur.done:
            return ComparePage(path, a, b, tuple(stories))
        line = cur.take()
        if sm := _STORY_RE.fullmatch(line):
            stories.append(_story(cur, sm, group, texts, (a, b)))
        elif line.startswith(" "):
            raise cur.error(f"unexpected indented line {line.strip()[:60]!r} outside a story")
        else:
            group = heading_name(line.strip())


def _story(
    cur: Cursor, sm: re.Match[str], group: str | None, texts: list[str], pair: tuple[str, str]
) -> CompareStory:
    """The story whose ``N. <persona label><text>`` line ``cur`` has just read."""
    start, rest, number = cur.lineno, sm.group(2), cur.number(sm.group(1), "story number")
    story = f"story {number}"
    text = next((t for t in texts if rest.endswith(t) and len(rest) > len(t)), None)
    if text is None:
        if not (cm := re.match(r"([a-z][a-z -]*?)([A-Z].*)", rest)):
            raise cur.error(f"cannot split persona and story text in {rest[:60]!r}")
        label, text = cm.group(1), cm.group(2)
    else:
        label = rest[: -len(text)]
    cur.fit("Persona.label", "persona label", label.strip())
    cur.skip_blank()
    line = cur.take(f"{story} is truncated: no 'weight N · round …' line")
    if not (wm := _WEIGHT_RE.fullmatch(line.strip())):
        raise cur.error(f"{story}: expected 'weight N · round to X' or 'weight N · round drawn'")
    digits = wm.group(1).lstrip("0") or "0"
    if digits not in ("1", "2", "3"):
        shown = digits if len(digits) <= 20 else digits[:20] + "…"
        raise cur.error(f"{story}: weight {shown} is outside 1–3")
    won = DRAWN if wm.group(3) else wm.group(2).strip()
    if won not in (DRAWN, *pair):
        raise cur.error(f"{story}: round to {won!r}, which is neither {pair[0]!r} nor {pair[1]!r}")
    cells = []
    for product in pair:
        cur.skip_blank()
        cur.take(f"{story} is truncated: no cell for {product}")
        cells.append(_cell(cur, product))
    return CompareStory(
        number, group, label.strip(), text, int(digits), won, (cells[0], cells[1]), start
    )


def _cell(cur: Cursor, product: str) -> CellDetail:
    """The cell whose first line ``cur`` has just read, up to its ``proof ↗⚑ flag`` line."""
    head = cur.line.strip()
    if not head.startswith(product):
        raise cur.error(f"expected {product}'s cell, got {head[:60]!r}")
    if not (m := _JUDGEMENT_RE.fullmatch(head[len(product) :])):
        raise cur.error(f"cannot read {product}'s verdict line {head[:60]!r}")
    symbol, word, proof, quality_text = m.groups()
    if word not in Verdict.values:
        raise cur.error(f"unknown verdict {word!r} for {product}")
    verdict = Verdict(word)
    if verdict is not Verdict.NA and verdict.symbol != symbol:
        raise cur.error(f"symbol {symbol!r} does not match verdict {word!r}")
    with cur.checks():
        quality = parse_quality(quality_text) if quality_text else None
    value = CellValue(verdict, Proof(proof) if proof else None, quality)
    if errors := value.errors():
        raise cur.error(f"{product}'s cell: {' '.join(errors.values())}")
    start = cur.lineno
    cur.skip_blank()
    rationale, line = "", cur.peek() or ""
    if line.startswith("   ") and not line.startswith("   •") and line.strip() not in _CELL_END:
        rationale = cur.take().strip()
        cur.fit("Cell.rationale", "rationale", rationale)
    evidence = []
    while True:
        cur.skip_blank()
        s = cur.take(f"{product}'s cell is truncated: no 'proof ↗⚑ flag' / '⚑ flag' line").strip()
        if s in _CELL_END:
            break
        if not s.startswith("• "):
            raise cur.error(f"unexpected line in {product}'s cell: {s[:60]!r}")
        if not (em := _EVIDENCE_RE.fullmatch(s)):
            raise cur.error(f"cannot read evidence line {s[:60]!r}")
        cur.fit("Evidence.source", "evidence source", em.group(1))
        cur.fit("Evidence.quote", "quote", em.group(2))
        evidence.append(Quote(em.group(1), em.group(2)))
    if not rationale:
        raise cur.error(f"{product}'s cell has no rationale", start)
    return CellDetail(product, value, rationale, tuple(evidence), start)
