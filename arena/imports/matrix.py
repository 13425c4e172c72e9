"""The story matrix of the arena overview page: its product columns, its categories with their
blurbs and sub-groups, and a row of cells per story, every name checked against what the database
stores."""

from __future__ import annotations

import re

from arena.imports.cursor import Cursor
from arena.imports.limits import fit, short, slug
from arena.imports.records import CategoryRecord, MatrixStory
from core.text import arena_slugify, heading_name
from stories.values import CellValue


class StoryMatrix:
    """The story matrix: category headings (``<Name> — <blurb><Name>``), sub-group headings, and
    tables whose columns are the products, up to the legend (``Verdict…``)."""

    def __init__(self, cur: Cursor):
        self.cur = cur
        self.products: tuple[str, ...] | None = None
        self.categories: list[CategoryRecord] = []
        self.stories: list[MatrixStory] = []
        self.category: str | None = None
        self.blurb = ""
        self.category_lines: dict[str, int] = {}  # category name → line of its heading
        self.category_slugs: dict[str, str] = {}  # category slug → name
        self.groups: list[str | None] = []  # of the current category
        self.group_lines: dict[str, int] = {}  # sub-group name → line of its heading
        self.group: str | None = None
        self.in_table = False

    def read(
        self,
    ) -> tuple[tuple[str, ...], tuple[CategoryRecord, ...], tuple[MatrixStory, ...]]:
        cur = self.cur
        while (line := cur.peek()) is not None and not line.startswith("Verdict"):
            cur.take()
            if line.startswith("| Story | Persona |"):
                self._table_header(line)
            elif line.startswith("|---") or re.fullmatch(
                r"[0-9]+/[0-9]+ stories shown.*", line.strip()
            ):
                pass
            elif line.startswith("| "):
                self._row(line)
            elif line.strip():
                self._heading(line)
                self.in_table = False
        self._close_category()
        if self.products is None:
            raise cur.error("the story matrix has no table")
        return self.products, tuple(self.categories), tuple(self.stories)

    def _close_category(self) -> None:
        if self.category is not None:
            self.categories.append(CategoryRecord(self.category, self.blurb, tuple(self.groups)))

    def _table_header(self, line: str) -> None:
        cur = self.cur
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        these = tuple(cols[2:])
        if self.products is None:
            self.products = self._check_products(these)
        elif these != self.products:
            raise cur.error(f"matrix columns {these} differ from the first table's {self.products}")
        if self.category is None:
            raise cur.error("a matrix table before any category heading")
        if self.group not in self.groups:
            self.groups.append(self.group)
        self.in_table = True

    def _check_products(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """The matrix's columns: names and slugs that fit, no two alike."""
        by_slug: dict[str, str] = {}
        for name in names:
            with self.cur.checks():
                fit("Product.name", "product name", name)
                made = slug("Product.slug", "product name", name)
            if made in by_slug:
                other = by_slug[made]
                raise self.cur.error(
                    f"product {short(name)} appears twice in the matrix columns"
                    if other == name
                    else f"products {short(other)} and {short(name)} have the same slug {made!r}"
                )
            by_slug[made] = name
        return names

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
        story_col, persona = cols[0], cols[1]
        if not story_col.startswith(self.blurb):
            raise cur.error(f"story row does not start with its category's blurb {self.blurb!r}")
        text = story_col[len(self.blurb) :].strip()
        if not text:
            raise cur.error("story row has no story text")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", persona):
            raise cur.error(f"bad persona {persona!r}")
        with cur.checks():
            fit("Story.text", "story text", text)
            fit("Persona.slug", "persona", persona)
            cells = tuple(
                (product, CellValue.parse_mark(raw))
                for product, raw in zip(products, cols[2:], strict=True)
            )
        self.stories.append(
            MatrixStory(text, persona, self.category, self.group, cells, cur.lineno)
        )

    def _heading(self, line: str) -> None:
        """A category heading, else a sub-group heading."""
        cur = self.cur
        header = _split_category_heading(line)
        if header:
            self._close_category()
            self.category, self.blurb = header
            if self.category in self.category_lines:
                raise cur.error(
                    f"category {short(self.category)} appears twice "
                    f"(first on line {self.category_lines[self.category]})"
                )
            made = arena_slugify(self.category)
            if made in self.category_slugs:
                # the category's slug is its key in ?weights= and the matrix's filter
                raise cur.error(
                    f"categories {short(self.category_slugs[made])} and {short(self.category)} "
                    f"have the same slug {made!r}"
                )
            self.category_slugs[made] = self.category
            self.category_lines[self.category] = cur.lineno
            with cur.checks():
                fit("Category.name", "category name", self.category)
                fit("Category.blurb", "category blurb", self.blurb)
            self.groups, self.group_lines, self.group = [], {}, None
            return
        if self.category is None:
            raise cur.error(f"unexpected line {line[:60]!r} before the first category")
        group = self.group = heading_name(line.strip())
        if group in self.group_lines:
            raise cur.error(
                f"sub-group {short(group)} appears twice in category {short(self.category)} "
                f"(first on line {self.group_lines[group]})"
            )
        self.group_lines[group] = cur.lineno
        with cur.checks():
            fit("SubGroup.name", "sub-group name", group)


def _split_category_heading(line: str) -> tuple[str, str] | None:
    """``<Name> — <blurb><Name>`` → (name, blurb); None if the line is not such a heading."""
    if " — " not in line:
        return None
    name = line.split(" — ", 1)[0]
    if name and line.endswith(name) and len(line) > 2 * len(name) + 3:
        return name, line[: -len(name)]
    return None
