"""The arena overview page: title, counts, leaderboard, story matrix and adjacent arenas."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from arena.imports.reading import (
    CategoryRecord,
    Cursor,
    LeaderboardRow,
    MatrixStory,
    OverviewPage,
    future_problem,
    max_value,
    short,
)
from core.text import arena_slugify, heading_name
from stories.values import CellValue

_DATE = r"([0-9]{4}-[0-9]{2}-[0-9]{2})"
_COUNTS_RE = re.compile(
    rf"([0-9]+) user stories · ([0-9]+) judged cells · updated {_DATE} · Evidence as of {_DATE}"
)
_TITLE_RE = re.compile(r"(.+) arena\1")  # the arena's title, and each adjacent arena's
# a product's popularity figures: the model field, the mark shown before the figure and after it
_FIGURES = {"stars": ("★", ""), "stars_growth": ("▲", "/yr")}
_FIGURES |= {"npm_weekly": ("npm", "/wk"), "pypi_weekly": ("pypi", "/wk")}


def is_overview(lines: list[str]) -> bool:
    return any(re.match(r"[0-9]+ user stories · [0-9]+ judged cells", ln) for ln in lines[:5])


def parse_overview(path: str, lines: list[str]) -> tuple[OverviewPage, dict[str, dict]]:
    """The page, and each product's stored values (its slug, and what the leaderboard shows)."""
    cur = Cursor(path, lines)
    if not (m := _TITLE_RE.fullmatch(cur.take())):
        raise cur.error("first line should be '<Name> arena<Name>'")
    name = cur.fit("Arena.name", "arena name", m.group(1))
    cur.slug("Arena.slug", "arena name", name)
    if len(lines) < 4:
        raise cur.error("page ends before the story count line", len(lines))
    description = cur.fit("Arena.description", "arena description", cur.take().strip())
    if not (m := _COUNTS_RE.fullmatch(cur.take().strip())):
        raise cur.error(
            "expected 'N user stories · M judged cells · updated DATE · Evidence as of DATE'"
        )
    counts_line = cur.lineno
    story_count = cur.number(m.group(1), "story count")
    cell_count = cur.number(m.group(2), "judged cell count")
    updated = _date(cur, m.group(3), "its updated date")
    evidence_as_of = _date(cur, m.group(4), "its evidence date")
    # (the leaderboard's rows are read once the matrix has named the products)
    if not cur.skip_until(lambda line: line.startswith("| 1 |")):
        raise cur.error("no leaderboard rows found")
    leader_lines = []
    while (line := cur.peek()) is not None and line.startswith("| "):
        cur.take()
        leader_lines.append(cur.lineno)
    # the "Best for" cards are the scores' to give, and the site computes those
    cur.skip_until(lambda line: line.startswith("Story matrix"))
    cur.take("no story matrix found")
    products, categories, stories = StoryMatrix(cur).read()
    adjacent = _adjacent_arenas(cur)
    blank = {"tier": "", **dict.fromkeys([*_FIGURES, "popularity_as_of"])}
    values = {p: {"slug": arena_slugify(p), **blank} for p in products}
    ranked: dict[str, int] = {}
    leaderboard = []
    for at in leader_lines:
        row, shown = _leader_row(Cursor(path, lines, at), products)
        leaderboard.append(row)
        twice = f"product {short(row.product)} appears twice in the leaderboard"
        cur.once(ranked, row.product, twice, at)
        values[row.product] |= shown | {"popularity_as_of": evidence_as_of}
    if len(stories) != story_count:
        says = f"the page says {story_count} user stories but its matrix has {len(stories)}"
        raise cur.error(says, counts_line)
    if (cells := len(stories) * len(products)) != cell_count:
        says = f"the page says {cell_count} judged cells but its matrix has {cells}"
        raise cur.error(says, counts_line)
    head = (path, name, description, updated, evidence_as_of, products, categories, stories)
    return OverviewPage(*head, adjacent, tuple(leaderboard)), values


def _date(cur: Cursor, text: str, what: str) -> date:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise cur.error(f"bad date {text!r}") from None
    if problem := future_problem(day):
        raise cur.error(f"{what} {problem}")
    return day


def _leader_row(cur: Cursor, products: tuple[str, ...]) -> tuple[LeaderboardRow, dict]:
    """The row, and its product's tier and popularity figures."""
    cols = [c.strip() for c in cur.line.strip().split(" | ")]
    if len(cols) < 2:
        raise cur.error("leaderboard row has no product column")
    if not (m := re.fullmatch(r"(.+?) ?vs (.+) ↗", cols[1])):
        raise cur.error(f"cannot read leaderboard product {cols[1]!r}")
    head, vs = m.group(1).strip(), m.group(2).strip()
    product = next((p for p in sorted(products, key=len, reverse=True) if head.startswith(p)), None)
    if product is None:
        raise cur.error(f"leaderboard names {head!r}, which is not one of the matrix's products")
    values: dict[str, Any] = {"tier": cur.fit("Product.tier", "tier", head[len(product) :].strip())}
    j = 2
    while j < len(cols) and re.fullmatch(r"[0-9]+/100", cols[j]):  # the scores are computed
        j += 1
    popularity = cols[j] if j < len(cols) else ""
    for key, (mark, unit) in _FIGURES.items():
        if fm := re.search(rf"{mark} ([0-9.]+[kM]?){unit}", popularity):
            values[key] = cur.figure(f"Product.{key}", f"{mark} {fm.group(1)}")
    rest = " | ".join(cols[j + 1 :])
    vm = re.search(r"([0-9]+)/([0-9]+) verified(?: · ([0-9]+) disputed)?", rest)
    if not vm or not re.search(r"[0-9]+/100 integrity", rest):
        raise cur.error("leaderboard row lacks 'V/E verified' or 'N/100 integrity'")
    whats = ("verified count", "evidenced count", "disputed count")
    counts = (cur.number(vm.group(i) or "0", what) for i, what in enumerate(whats, start=1))
    return LeaderboardRow(product, vs, *counts), values


def _adjacent_arenas(cur: Cursor) -> tuple[dict[str, Any], ...]:
    adjacent = []
    first_lines: dict[str, int] = {}
    while not cur.done:
        am = _TITLE_RE.fullmatch(cur.take().strip())
        if not am or cur.done:
            continue
        name = cur.fit("AdjacentArena.name", "adjacent arena name", am.group(1))
        cur.once(first_lines, name, f"adjacent arena {short(name)} appears twice")
        if not (pm := re.fullmatch(r"([0-9]+) products · leader: (.+)", cur.take().strip())):
            raise cur.error("expected 'N products · leader: NAME' under an adjacent arena")
        most = max_value("AdjacentArena.product_count")
        count = cur.number(pm.group(1), "adjacent arena product count", most)
        leader = cur.fit("AdjacentArena.leader", "adjacent arena leader", pm.group(2))
        shares = ""
        if (line := cur.peek()) is not None and line.startswith("shares: "):
            cur.take()
            shares = line[len("shares: ") :].strip()
            cur.fit("AdjacentArena.shares", "shared category", shares)
        adjacent.append({"name": name, "product_count": count, "leader": leader, "shares": shares})
    return tuple(adjacent)


class StoryMatrix:
    """Category headings (``<Name> — <blurb><Name>``), sub-group headings and product tables."""

    def __init__(self, cur: Cursor):
        self.cur = cur
        self.products: tuple[str, ...] | None = None
        self.stories: dict[str, MatrixStory] = {}  # by text
        self.blurbs: dict[str, str] = {}  # by category, in page order
        self.groups: dict[str, list[str | None]] = {}  # each category's, in page order
        self.lines: dict[str, int] = {}  # where each category and sub-group first is
        self.category_slugs: dict[str, str] = {}  # category slug → name
        self.category: str | None = None
        self.group: str | None = None
        self.in_table = False

    def read(self) -> tuple[tuple[str, ...], tuple[CategoryRecord, ...], tuple[MatrixStory, ...]]:
        cur = self.cur
        while (line := cur.peek()) is not None and not line.startswith("Verdict"):
            cur.take()
            if line.startswith("| Story | Persona |"):
                self._table_header(line)
            elif line.startswith("| "):
                self._row(line)
            elif line.strip() and not re.match(r"\|---|[0-9]+/[0-9]+ stories shown", line.strip()):
                self._heading(line)
                self.in_table = False
        if self.products is None:
            raise cur.error("the story matrix has no table")
        categories = (CategoryRecord(c, b, tuple(self.groups[c])) for c, b in self.blurbs.items())
        return self.products, tuple(categories), tuple(self.stories.values())

    def _table_header(self, line: str) -> None:
        cur = self.cur
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        these = tuple(cols[2:])
        if self.products is None:
            by_slug: dict[str, str] = {}
            for name in these:
                cur.fit("Product.name", "product name", name)
                cur.slug("Product.slug", "product name", name)
                if name in by_slug.values():
                    raise cur.error(f"product {short(name)} appears twice in the matrix columns")
                cur.same_slug(by_slug, "products", name)
            self.products = these
        elif these != self.products:
            raise cur.error(f"matrix columns {these} differ from the first table's {self.products}")
        if self.category is None:
            raise cur.error("a matrix table before any category heading")
        if self.group not in (groups := self.groups[self.category]):
            groups.append(self.group)
        self.in_table = True

    def _row(self, line: str) -> None:
        cur, products = self.cur, self.products
        if not self.in_table or products is None or self.category is None:
            raise cur.error("a matrix row outside a table")
        cols = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cols) != 2 + len(products):
            raise cur.error(
                f"matrix row has {len(cols) - 2} cells for {len(products)} products "
                f"({', '.join(products)}): a cell for a product the arena lacks, or one missing"
            )
        story_col, persona, blurb = cols[0], cols[1], self.blurbs[self.category]
        if not story_col.startswith(blurb):
            raise cur.error(f"story row does not start with its category's blurb {blurb!r}")
        if not (text := story_col[len(blurb) :].strip()):
            raise cur.error("story row has no story text")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", persona):
            raise cur.error(f"bad persona {persona!r}")
        with cur.checks():
            cur.fit("Story.text", "story text", text)
            cur.fit("Persona.slug", "persona", persona)
            cells = tuple(
                (product, CellValue.parse_mark(raw))
                for product, raw in zip(products, cols[2:], strict=True)
            )
        if first := self.stories.get(text):
            raise cur.error(f"story {text[:60]!r} already appears on line {first.line}")
        self.stories[text] = MatrixStory(
            text, persona, self.category, self.group, cells, cur.lineno
        )

    def _heading(self, line: str) -> None:
        """A category's (``<Name> — <blurb><Name>``) or else a sub-group's."""
        cur, category = self.cur, line.split(" — ", 1)[0]
        if category and line.endswith(category) and len(line) > 2 * len(category) + 3:
            blurb = line[: -len(category)]
            cur.once(self.lines, category, f"category {short(category)} appears twice")
            # (a category's slug is its key in ?weights= and the matrix's filter)
            cur.same_slug(self.category_slugs, "categories", category)
            cur.fit("Category.name", "category name", category)
            self.blurbs[category] = cur.fit("Category.blurb", "category blurb", blurb)
            self.category, self.group, self.groups[category] = category, None, []
            return
        if self.category is None:
            raise cur.error(f"unexpected line {line[:60]!r} before the first category")
        group = self.group = heading_name(line.strip())
        twice = f"sub-group {short(group)} appears twice in category {short(self.category)}"
        cur.once(self.lines, f"{self.category}\n{group}", twice)
        cur.fit("SubGroup.name", "sub-group name", group)
