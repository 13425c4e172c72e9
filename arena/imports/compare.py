"""A head-to-head page: title line ``A vs B``, then sub-group headings and numbered stories, each with
its weight, its round and both products' cells in detail (judgement, rationale, evidence)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from arena.imports.cursor import Cursor
from arena.imports.limits import clip, fit, number
from arena.imports.records import CellDetail, ComparePage, CompareStory, Evidence
from arena.scoring import DRAWN
from core.text import heading_name
from stories.values import CellValue, Proof, Verdict, parse_quality

_STORY_RE = re.compile(r"([0-9]+)\. (.+)")
_WEIGHT_RE = re.compile(r"weight ([0-9]+) · (?:round to (.+)|round (drawn))")
# after the product's name: ``✓fullcommunity9/10``, ``—none0/10``
_JUDGEMENT_RE = re.compile(
    rf"(\S)([a-z/]+?)({'|'.join(re.escape(p) for p in Proof.values)})?([0-9]+/10)?"
)
_EVIDENCE_RE = re.compile(r"• \[([a-z0-9-]+)\] “(.*)”")
_CELL_END = ("proof ↗⚑ flag", "⚑ flag")


def parse_compare(
    path: str, lines: list[str], story_texts: Sequence[str], products: Sequence[str]
) -> ComparePage:
    """Parse a head-to-head page of an arena whose overview lists ``products`` and ``story_texts``.

    The story texts split "<persona label><story text>" lines; a story the overview lacks is split at
    its first capital letter (and refused when the pages are merged).
    """
    cur = Cursor(path, lines)
    m = re.fullmatch(r"(.+) vs (.+)", cur.take().strip())
    if not m:
        raise cur.error("first line should be 'A vs B'")
    a, b = m.group(1), m.group(2)
    for product in (a, b):
        if product not in products:
            raise cur.error(f"{product!r} is not a product of the arena ({', '.join(products)})")
    texts = sorted(story_texts, key=len, reverse=True)
    stories: list[CompareStory] = []
    group: str | None = None
    while True:
        cur.skip_blank()
        if cur.done:
            return ComparePage(path, a, b, tuple(stories))
        line = cur.take()
        sm = _STORY_RE.fullmatch(line)
        if sm:
            stories.append(_story(cur, sm, group, texts, (a, b)))
        elif line.startswith(" "):
            raise cur.error(f"unexpected indented line {line.strip()[:60]!r} outside a story")
        else:
            group = heading_name(line.strip())


def _story(
    cur: Cursor,
    sm: re.Match[str],
    group: str | None,
    texts: list[str],
    pair: tuple[str, str],
) -> CompareStory:
    """The story whose ``N. <persona label><text>`` line ``cur`` has just read."""
    start = cur.lineno
    with cur.checks():
        story_number = number(sm.group(1), "story number")
    rest = sm.group(2)
    text = next((t for t in texts if rest.endswith(t) and len(rest) > len(t)), None)
    if text is None:
        cm = re.match(r"([a-z][a-z -]*?)([A-Z].*)", rest)
        if not cm:
            raise cur.error(f"cannot split persona and story text in {rest[:60]!r}")
        label, text = cm.group(1), cm.group(2)
    else:
        label = rest[: -len(text)]
    with cur.checks():
        fit("Persona.label", "persona label", label.strip())

    cur.skip_blank()
    line = cur.take(f"story {story_number} is truncated: no 'weight N · round …' line")
    wm = _WEIGHT_RE.fullmatch(line.strip())
    if not wm:
        raise cur.error(
            f"story {story_number}: expected 'weight N · round to X' or 'weight N · round drawn'"
        )
    digits = wm.group(1).lstrip("0") or "0"
    if digits not in ("1", "2", "3"):
        raise cur.error(f"story {story_number}: weight {clip(digits, 20)} is outside 1–3")
    won = DRAWN if wm.group(3) else wm.group(2).strip()
    if won not in (DRAWN, *pair):
        raise cur.error(
            f"story {story_number}: round to {won!r}, which is neither {pair[0]!r} nor {pair[1]!r}"
        )

    cells = []
    for product in pair:
        cur.skip_blank()
        cur.take(f"story {story_number} is truncated: no cell for {product}")
        cells.append(_cell(cur, product))
    return CompareStory(
        story_number, group, label.strip(), text, int(digits), won, (cells[0], cells[1]), start
    )


def _cell(cur: Cursor, product: str) -> CellDetail:
    """The cell whose first line (``<product><symbol><verdict><proof><N>/10``) ``cur`` has just read:
    its judgement, rationale and evidence, up to its ``proof ↗⚑ flag`` line."""
    head = cur.line.strip()
    if not head.startswith(product):
        raise cur.error(f"expected {product}'s cell, got {head[:60]!r}")
    start = cur.lineno
    value = _judgement(cur, product, head)

    cur.skip_blank()
    rationale = ""
    line = cur.peek()
    if (
        line is not None
        and line.startswith("   ")
        and not line.startswith("   •")
        and line.strip() not in _CELL_END
    ):
        rationale = cur.take().strip()
        with cur.checks():
            fit("Cell.rationale", "rationale", rationale)
    evidence = []
    while True:
        cur.skip_blank()
        s = cur.take(f"{product}'s cell is truncated: no 'proof ↗⚑ flag' / '⚑ flag' line").strip()
        if s in _CELL_END:
            break
        if not s.startswith("• "):
            raise cur.error(f"unexpected line in {product}'s cell: {s[:60]!r}")
        em = _EVIDENCE_RE.fullmatch(s)
        if not em:
            raise cur.error(f"cannot read evidence line {s[:60]!r}")
        with cur.checks():
            fit("Evidence.source", "evidence source", em.group(1))
            fit("Evidence.quote", "quote", em.group(2))
        evidence.append(Evidence(em.group(1), em.group(2)))
    if not rationale:
        raise cur.error_at(start, f"{product}'s cell has no rationale")
    return CellDetail(
        product, value.verdict, value.proof, value.quality, rationale, tuple(evidence), start
    )


def _judgement(cur: Cursor, product: str, head: str) -> CellValue:
    m = _JUDGEMENT_RE.fullmatch(head[len(product) :])
    if not m:
        raise cur.error(f"cannot read {product}'s verdict line {head[:60]!r}")
    symbol, word, proof, quality_text = m.groups()
    if word not in Verdict.values:
        raise cur.error(f"unknown verdict {word!r} for {product}")
    verdict = Verdict(word)
    if verdict.applicable and Verdict.from_symbol(symbol) is not verdict:
        raise cur.error(f"symbol {symbol!r} does not match verdict {word!r}")
    if verdict.applicable and quality_text is None:
        raise cur.error(f"{product}'s cell has no quality")
    with cur.checks():
        quality = parse_quality(quality_text) if quality_text else None
    value = CellValue(verdict, Proof(proof) if proof else None, quality)
    errors = value.errors()
    if errors:
        raise cur.error(f"{product}'s cell: {' '.join(errors.values())}")
    return value
