"""Pure parser of published arena page dumps into plain records.

No ORM in here: the parser turns text into frozen dataclasses and reports every problem as
``FILE:LINE: reason`` (``PageError``). The import service (``arena.services.arena_import``) writes the
records in one transaction.

What the parser returns is what the database accepts: every text fits its model field's
``max_length`` (read from the field), every number fits its column, names give non-empty slugs and no
two products, categories, sub-groups of a category, stories or adjacent arenas are alike. Control
characters are dropped as the lines are read (``arena.text.clean_text``), so nothing stored can break
the Atom feed. ``tests/arena/test_import_fuzz.py`` checks this on mutated seed pages.

Two kinds of page are understood:

* the arena overview page (title line ``<Name> arena<Name>``, the "N user stories · M judged cells" line,
  leaderboard, best by user type, story matrix, legend, adjacent arenas);
* a head-to-head page (title line ``A vs B``) listing stories with both products' cells in detail.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

VERDICTS = ("full", "partial", "disputed", "none", "n/a")
PROOF_LETTERS = {
    "T": "probed",
    "X": "community",
    "C": "claimed",
    "D": "contradicted",
    "⚿": "auth-gated",
}
PROOF_WORDS = tuple(PROOF_LETTERS.values())
VERDICT_SYMBOLS = {"✓": "full", "~": "partial", "!": "disputed", "—": "none"}


class PageError(ValueError):
    """A problem in a page dump, located by file and line."""

    def __init__(self, path: str, line: int, reason: str):
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}:{line}: {reason}")


# ---------------------------------------------------------------- what the database can store

# The model fields the import writes, by "Model.field". The limits are read from the fields themselves
# (lazily, so that importing this module needs no configured Django).
_MODELS = {
    "Arena": "arena.Arena",
    "Category": "arena.Category",
    "SubGroup": "arena.SubGroup",
    "Persona": "arena.Persona",
    "AdjacentArena": "arena.AdjacentArena",
    "Product": "products.Product",
    "Story": "stories.Story",
    "Evidence": "stories.Evidence",
}


def _model_field(label: str):
    from django.apps import apps

    model, name = label.split(".")
    return apps.get_model(_MODELS[model])._meta.get_field(name)


@functools.cache
def max_length(label: str) -> int:
    """``max_length("Product.name")`` → the model field's max_length."""
    return _model_field(label).max_length


@functools.cache
def max_value(label: str) -> int:
    """The largest value an integer model field holds on every database Django supports."""
    from django.db.backends.base.operations import BaseDatabaseOperations

    internal = _model_field(label).get_internal_type()
    return BaseDatabaseOperations.integer_field_ranges[internal][1]


# A count that is not stored still has to be an int we can convert and compare cheaply.
_ANY_COUNT_MAX = 2**31 - 1


def _clip(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[:size] + "…"


def _short(text: str, size: int = 40) -> str:
    return repr(_clip(text, size))


def _fit(path: str, lineno: int, label: str, what: str, text: str) -> str:
    """``text`` if it fits the model field ``label``; else a PageError."""
    limit = max_length(label)
    if len(text) > limit:
        raise PageError(
            path,
            lineno,
            f"{what} {_short(text)} is {len(text)} characters long; at most {limit} fit ({label})",
        )
    return text


def _int(path: str, lineno: int, digits: str, what: str, maximum: int = _ANY_COUNT_MAX) -> int:
    """ASCII digits as an int no larger than ``maximum`` (a huge digit run is refused before any
    conversion: Python refuses int() of more than 4300 digits, and the columns hold far fewer)."""
    significant = digits.lstrip("0") or "0"
    if len(significant) > len(str(maximum)) or int(significant) > maximum:
        raise PageError(path, lineno, f"{what} {_short(digits, 20)} is larger than {maximum}")
    return int(significant)


def _slug(path: str, lineno: int, label: str, what: str, name: str) -> str:
    """The site's slug of ``name``, which must not be empty and must fit ``label``."""
    from arena.text import arena_slugify

    slug = arena_slugify(name)
    if not slug:
        raise PageError(
            path, lineno, f"{what} {_short(name)} has no letters or digits to make a URL slug of"
        )
    limit = max_length(label)
    if len(slug) > limit:
        raise PageError(
            path,
            lineno,
            f"{what} {_short(name)} gives a slug of {len(slug)} characters; "
            f"at most {limit} fit ({label})",
        )
    return slug


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class CellMark:
    """A cell as the matrix shows it."""

    verdict: str
    proof: str | None
    quality: int | None


@dataclass(frozen=True)
class MatrixStory:
    text: str
    persona: str
    category: str
    group: str | None
    cells: tuple[tuple[str, CellMark], ...]  # (product name, mark) in column order
    line: int


@dataclass(frozen=True)
class CategoryRecord:
    name: str
    blurb: str
    groups: tuple[str | None, ...]


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    product: str
    tier: str
    vs: str
    scores: tuple[int, ...]
    stars: str | None
    stars_growth: str | None
    npm_weekly: str | None
    pypi_weekly: str | None
    verified: int
    with_evidence: int
    disputed: int
    integrity: int
    line: int


@dataclass(frozen=True)
class PersonaWinner:
    persona: str
    winner: str
    score: int
    runner_up: str | None
    runner_up_score: int | None
    story_count: int


@dataclass(frozen=True)
class AdjacentRecord:
    name: str
    product_count: int
    leader: str
    shares: str | None


@dataclass(frozen=True)
class OverviewPage:
    path: str
    name: str
    description: str
    story_count: int
    cell_count: int
    updated: date
    evidence_as_of: date
    products: tuple[str, ...]
    leaderboard: tuple[LeaderboardRow, ...]
    personas: tuple[PersonaWinner, ...]
    categories: tuple[CategoryRecord, ...]
    stories: tuple[MatrixStory, ...]
    adjacent: tuple[AdjacentRecord, ...]


@dataclass(frozen=True)
class Evidence:
    source: str
    quote: str


@dataclass(frozen=True)
class CellDetail:
    product: str
    verdict: str
    proof: str | None
    quality: int | None
    rationale: str
    evidence: tuple[Evidence, ...]
    line: int


@dataclass(frozen=True)
class CompareStory:
    number: int
    group: str | None
    persona_label: str
    text: str
    weight: int
    round: str  # product name or "drawn"
    cells: tuple[CellDetail, CellDetail]
    line: int


@dataclass(frozen=True)
class ComparePage:
    path: str
    a: str
    b: str
    stories: tuple[CompareStory, ...] = field(default=())


# ---------------------------------------------------------------- helpers


def _quality(path: str, lineno: int, text: str) -> int:
    m = re.fullmatch(r"([0-9]+)/10", text.strip())
    if not m:
        raise PageError(path, lineno, f"quality {text.strip()!r} is not of the form N/10")
    q = m.group(1).lstrip("0") or "0"
    if len(q) > 2 or int(q) > 10:
        raise PageError(path, lineno, f"quality {_clip(q, 20)}/10 is outside 0–10")
    return int(q)


def parse_matrix_cell(path: str, lineno: int, raw: str) -> CellMark:
    """``fullX 9/10``, ``none 0/10``, ``n/a``, ``partial⚿ 6/10``."""
    raw = raw.strip()
    if raw == "n/a":
        return CellMark("n/a", None, None)
    m = re.fullmatch(r"([a-z/]+)(\S?)\s+(\S+)", raw)
    if not m:
        raise PageError(path, lineno, f"cannot read matrix cell {raw!r}")
    verdict, letter, quality = m.groups()
    if verdict not in VERDICTS:
        raise PageError(path, lineno, f"unknown verdict {verdict!r} in cell {raw!r}")
    q = _quality(path, lineno, quality)
    if verdict == "none":
        if letter:
            raise PageError(path, lineno, f"a 'none' cell has no proof, got {letter!r}")
        if q != 0:
            raise PageError(path, lineno, f"a 'none' cell has quality 0, got {q}/10")
        return CellMark("none", None, 0)
    if not letter:
        raise PageError(path, lineno, f"cell {raw!r} has no proof letter")
    if letter not in PROOF_LETTERS:
        raise PageError(path, lineno, f"unknown proof letter {letter!r} in cell {raw!r}")
    return CellMark(verdict, PROOF_LETTERS[letter], q)


_DATE = r"([0-9]{4}-[0-9]{2}-[0-9]{2})"


def _date(path: str, lineno: int, text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise PageError(path, lineno, f"bad date {text!r}") from None


# ---------------------------------------------------------------- overview page


def _split_header(line: str) -> tuple[str, str] | None:
    """``<Name> — <blurb><Name>`` → (name, blurb); None if the line is not such a header."""
    if " — " not in line:
        return None
    name = line.split(" — ", 1)[0]
    if name and line.endswith(name) and len(line) > 2 * len(name) + 3:
        return name, line[: -len(name)]
    return None


def parse_overview(path: str, lines: list[str]) -> OverviewPage:
    n = len(lines)

    def err(i: int, reason: str) -> PageError:
        return PageError(path, i + 1, reason)

    title = lines[0]
    m = re.fullmatch(r"(.+) arena\1", title)
    if not m:
        raise err(0, "first line should be '<Name> arena<Name>'")
    name = _fit(path, 1, "Arena.name", "arena name", m.group(1))
    _slug(path, 1, "Arena.slug", "arena name", name)
    if n < 4:
        raise err(n - 1, "page ends before the story count line")
    description = lines[1].strip()
    m = re.fullmatch(
        rf"([0-9]+) user stories · ([0-9]+) judged cells · updated {_DATE} · Evidence as of {_DATE}",
        lines[2].strip(),
    )
    if not m:
        raise err(
            2, "expected 'N user stories · M judged cells · updated DATE · Evidence as of DATE'"
        )
    story_count = _int(path, 3, m.group(1), "story count")
    cell_count = _int(path, 3, m.group(2), "judged cell count")
    updated, evidence_as_of = _date(path, 3, m.group(3)), _date(path, 3, m.group(4))

    i = 3
    # ---- leaderboard
    while i < n and not lines[i].startswith("| 1 |"):
        i += 1
    if i == n:
        raise err(n - 1, "no leaderboard rows found")
    rows_raw: list[tuple[int, str]] = []
    while i < n and lines[i].startswith("| "):
        rows_raw.append((i, lines[i]))
        i += 1

    # ---- best by user type
    personas: list[PersonaWinner] = []
    while i < n and not lines[i].startswith("Story matrix"):
        if lines[i].startswith("Best for "):
            persona = lines[i][len("Best for ") :].strip()
            try:
                winner = lines[i + 1].strip()
                sm = re.fullmatch(r"([0-9]+)/100", lines[i + 2].strip())
                rm = re.fullmatch(r"Runner-up: (.+) \(([0-9]+)/100\)", lines[i + 3].strip())
                cm = re.fullmatch(r"([0-9]+) (\S+) stories scored", lines[i + 4].strip())
            except IndexError:
                raise err(n - 1, f"page ends inside 'Best for {persona}'") from None
            if not sm:
                raise err(i + 2, "expected the winner's score 'N/100'")
            if not cm:
                raise err(i + 4, "expected 'N <persona> stories scored'")
            personas.append(
                PersonaWinner(
                    persona=persona,
                    winner=winner,
                    score=_int(path, i + 3, sm.group(1), "score"),
                    runner_up=rm.group(1) if rm else None,
                    runner_up_score=_int(path, i + 4, rm.group(2), "score") if rm else None,
                    story_count=_int(path, i + 5, cm.group(1), "story count"),
                )
            )
            i += 5 if rm else 4
            continue
        i += 1
    if i == n:
        raise err(n - 1, "no story matrix found")
    i += 1

    # ---- matrix
    categories: list[CategoryRecord] = []
    stories: list[MatrixStory] = []
    products: tuple[str, ...] | None = None
    cat_name: str | None = None
    cat_blurb = ""
    cat_lines: dict[str, int] = {}  # category name → line of its heading
    groups: list[str | None] = []
    group_lines: dict[str, int] = {}  # sub-group name → line of its heading, in this category
    group: str | None = None
    in_table = False

    def close_category() -> None:
        if cat_name is not None:
            categories.append(CategoryRecord(cat_name, cat_blurb, tuple(groups)))

    while i < n:
        line = lines[i]
        if line.startswith("Verdict✓") or line.startswith("Verdict"):
            break
        if line.startswith("| Story | Persona |"):
            cols = [c.strip() for c in line.strip().strip("|").split("|")]
            these = tuple(cols[2:])
            if products is None:
                products = _check_products(path, i + 1, these)
            elif these != products:
                raise err(i, f"matrix columns {these} differ from the first table's {products}")
            if cat_name is None:
                raise err(i, "a matrix table before any category heading")
            if group not in groups:
                groups.append(group)
            in_table = True
        elif line.startswith("|---") or re.fullmatch(
            r"[0-9]+/[0-9]+ stories shown.*", line.strip()
        ):
            pass
        elif line.startswith("| "):
            if not in_table or products is None:
                raise err(i, "a matrix row outside a table")
            cols = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if len(cols) != 2 + len(products):
                raise err(
                    i,
                    f"matrix row has {len(cols) - 2} cells for {len(products)} products "
                    f"({', '.join(products)}): a cell for a product the arena lacks, or one missing",
                )
            story_col, persona = cols[0], cols[1]
            if not story_col.startswith(cat_blurb):
                raise err(i, f"story row does not start with its category's blurb {cat_blurb!r}")
            text = story_col[len(cat_blurb) :].strip()
            if not text:
                raise err(i, "story row has no story text")
            if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", persona):
                raise err(i, f"bad persona {persona!r}")
            _fit(path, i + 1, "Story.text", "story text", text)
            _fit(path, i + 1, "Persona.slug", "persona", persona)
            cells = tuple(
                (p, parse_matrix_cell(path, i + 1, raw))
                for p, raw in zip(products, cols[2:], strict=True)
            )
            stories.append(MatrixStory(text, persona, cat_name, group, cells, i + 1))
        elif line.strip():
            header = _split_header(line)
            if header:
                close_category()
                cat_name, cat_blurb = header
                if cat_name in cat_lines:
                    raise err(
                        i,
                        f"category {_short(cat_name)} appears twice "
                        f"(first on line {cat_lines[cat_name]})",
                    )
                cat_lines[cat_name] = i + 1
                _fit(path, i + 1, "Category.name", "category name", cat_name)
                _fit(path, i + 1, "Category.blurb", "category blurb", cat_blurb)
                groups, group_lines, group = [], {}, None
            else:
                if cat_name is None:
                    raise err(i, f"unexpected line {line[:60]!r} before the first category")
                group = line.strip()
                if group in group_lines:
                    raise err(
                        i,
                        f"sub-group {_short(group)} appears twice in category {_short(cat_name)} "
                        f"(first on line {group_lines[group]})",
                    )
                group_lines[group] = i + 1
                _fit(path, i + 1, "SubGroup.name", "sub-group name", group)
            in_table = False
        i += 1
    close_category()
    if products is None:
        raise err(i - 1, "the story matrix has no table")

    # ---- legend and adjacent arenas
    adjacent: list[AdjacentRecord] = []
    adjacent_lines: dict[str, int] = {}
    while i < n:
        am = re.fullmatch(r"(.+) arena\1", lines[i].strip())
        if am and i + 1 < n:
            adj_name = _fit(path, i + 1, "AdjacentArena.name", "adjacent arena name", am.group(1))
            if adj_name in adjacent_lines:
                raise err(
                    i,
                    f"adjacent arena {_short(adj_name)} appears twice "
                    f"(first on line {adjacent_lines[adj_name]})",
                )
            adjacent_lines[adj_name] = i + 1
            pm = re.fullmatch(r"([0-9]+) products · leader: (.+)", lines[i + 1].strip())
            if not pm:
                raise err(i + 1, "expected 'N products · leader: NAME' under an adjacent arena")
            count = _int(
                path,
                i + 2,
                pm.group(1),
                "adjacent arena product count",
                max_value("AdjacentArena.product_count"),
            )
            leader = _fit(path, i + 2, "AdjacentArena.leader", "adjacent arena leader", pm.group(2))
            shares = None
            if i + 2 < n and lines[i + 2].startswith("shares: "):
                shares = lines[i + 2][len("shares: ") :].strip()
                _fit(path, i + 3, "AdjacentArena.shares", "shared category", shares)
            adjacent.append(AdjacentRecord(adj_name, count, leader, shares))
            i += 3 if shares else 2
            continue
        i += 1

    leaderboard = tuple(_parse_leader_row(path, ln, raw, products) for ln, raw in rows_raw)
    ranked: dict[str, int] = {}
    for row in leaderboard:
        if row.product in ranked:
            raise PageError(
                path,
                row.line,
                f"product {_short(row.product)} appears twice in the leaderboard "
                f"(first on line {ranked[row.product]})",
            )
        ranked[row.product] = row.line

    if len(stories) != story_count:
        raise err(2, f"the page says {story_count} user stories but its matrix has {len(stories)}")
    if len(stories) * len(products) != cell_count:
        raise err(
            2,
            f"the page says {cell_count} judged cells but its matrix has {len(stories) * len(products)}",
        )
    seen: dict[str, int] = {}
    for s in stories:
        if s.text in seen:
            raise PageError(
                path, s.line, f"story {s.text[:60]!r} already appears on line {seen[s.text]}"
            )
        seen[s.text] = s.line
    return OverviewPage(
        path=path,
        name=name,
        description=description,
        story_count=story_count,
        cell_count=cell_count,
        updated=updated,
        evidence_as_of=evidence_as_of,
        products=products,
        leaderboard=leaderboard,
        personas=tuple(personas),
        categories=tuple(categories),
        stories=tuple(stories),
        adjacent=tuple(adjacent),
    )


def _figure(path: str, lineno: int, label: str, shown: str) -> int:
    """A popularity figure (``23k``) as ``arena.text.parse_figure`` will store it in ``label``."""
    from arena.text import parse_figure

    text = shown.split(" ", 1)[1]
    try:
        value = parse_figure(text)
    except ValueError as exc:
        raise PageError(path, lineno, f"popularity figure {_short(shown)}: {exc}") from None
    limit = max_value(label)
    if value > limit:
        raise PageError(
            path, lineno, f"popularity figure {_short(shown)} is larger than {limit} ({label})"
        )
    return value


def _check_products(path: str, lineno: int, names: tuple[str, ...]) -> tuple[str, ...]:
    """The matrix's columns: names and slugs that fit, no two alike."""
    by_slug: dict[str, str] = {}
    for name in names:
        _fit(path, lineno, "Product.name", "product name", name)
        slug = _slug(path, lineno, "Product.slug", "product name", name)
        if slug in by_slug:
            other = by_slug[slug]
            raise PageError(
                path,
                lineno,
                f"product {_short(name)} appears twice in the matrix columns"
                if other == name
                else f"products {_short(other)} and {_short(name)} have the same slug {slug!r}",
            )
        by_slug[slug] = name
    return names


def _parse_leader_row(path: str, i: int, raw: str, products: tuple[str, ...]) -> LeaderboardRow:
    def err(reason: str) -> PageError:
        return PageError(path, i + 1, reason)

    cols = [c.strip() for c in raw.strip().split(" | ")]
    cols[0] = cols[0].lstrip("| ").strip()
    if not re.fullmatch(r"[0-9]+", cols[0]):
        raise err(f"bad leaderboard rank {_short(cols[0])}")
    rank = _int(path, i + 1, cols[0], "leaderboard rank")
    if len(cols) < 2:
        raise err("leaderboard row has no product column")
    m = re.fullmatch(r"(.+?) ?vs (.+) ↗", cols[1])
    if not m:
        raise err(f"cannot read leaderboard product {cols[1]!r}")
    head, vs = m.group(1).strip(), m.group(2).strip()
    product = next((p for p in sorted(products, key=len, reverse=True) if head.startswith(p)), None)
    if product is None:
        raise err(f"leaderboard names {head!r}, which is not one of the matrix's products")
    tier = _fit(path, i + 1, "Product.tier", "tier", head[len(product) :].strip())
    scores: list[int] = []
    j = 2
    while j < len(cols) and re.fullmatch(r"[0-9]+/100", cols[j]):
        scores.append(_int(path, i + 1, cols[j].split("/")[0], "score"))
        j += 1
    pop = cols[j] if j < len(cols) else ""
    fig = {}
    for key, mark, pat in (
        ("stars", "★", r"★ ([0-9.]+[kM]?)"),
        ("stars_growth", "▲", r"▲ ([0-9.]+[kM]?)/yr"),
        ("npm_weekly", "npm", r"npm ([0-9.]+[kM]?)/wk"),
        ("pypi_weekly", "pypi", r"pypi ([0-9.]+[kM]?)/wk"),
    ):
        fm = re.search(pat, pop)
        fig[key] = fm.group(1) if fm else None
        if fm:
            _figure(path, i + 1, f"Product.{key}", f"{mark} {fm.group(1)}")
    rest = " | ".join(cols[j + 1 :])
    vm = re.search(r"([0-9]+)/([0-9]+) verified(?: · ([0-9]+) disputed)?", rest)
    im = re.search(r"([0-9]+)/100 integrity", rest)
    if not vm or not im:
        raise err("leaderboard row lacks 'V/E verified' or 'N/100 integrity'")
    return LeaderboardRow(
        rank=rank,
        product=product,
        tier=tier,
        vs=vs,
        scores=tuple(scores),
        verified=_int(path, i + 1, vm.group(1), "verified count"),
        with_evidence=_int(path, i + 1, vm.group(2), "evidenced count"),
        disputed=_int(path, i + 1, vm.group(3) or "0", "disputed count"),
        integrity=_int(path, i + 1, im.group(1), "integrity"),
        line=i + 1,
        **fig,
    )


# ---------------------------------------------------------------- head-to-head page

_STORY_RE = re.compile(r"([0-9]+)\. (.+)")
_WEIGHT_RE = re.compile(r"weight ([0-9]+) · (?:round to (.+)|round (drawn))")


def parse_compare(
    path: str,
    lines: list[str],
    story_texts: list[str] | None = None,
    products: Sequence[str] | None = None,
) -> ComparePage:
    """Parse a head-to-head page.

    ``story_texts`` (the overview page's stories) splits "<persona label><story text>" lines; without
    it the split falls at the first capital letter.
    """
    n = len(lines)
    m = re.fullmatch(r"(.+) vs (.+)", lines[0].strip())
    if not m:
        raise PageError(path, 1, "first line should be 'A vs B'")
    a, b = m.group(1), m.group(2)
    for product in (a, b) if products is not None else ():
        if product not in products:
            raise PageError(
                path, 1, f"{product!r} is not a product of the arena ({', '.join(products)})"
            )
    texts = sorted(story_texts or [], key=len, reverse=True)
    stories: list[CompareStory] = []
    group: str | None = None
    i = 1

    def err(k: int, reason: str) -> PageError:
        return PageError(path, min(k, n - 1) + 1, reason)

    def next_nonblank(k: int) -> int:
        while k < n and not lines[k].strip():
            k += 1
        return k

    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        sm = _STORY_RE.fullmatch(line)
        if not sm:
            if line.startswith(" "):
                raise err(i, f"unexpected indented line {line.strip()[:60]!r} outside a story")
            group = line.strip()
            i += 1
            continue
        start = i
        number, rest = _int(path, i + 1, sm.group(1), "story number"), sm.group(2)
        text = next((t for t in texts if rest.endswith(t) and len(rest) > len(t)), None)
        if text is None:
            cm = re.match(r"([a-z][a-z -]*?)([A-Z].*)", rest)
            if not cm:
                raise err(i, f"cannot split persona and story text in {rest[:60]!r}")
            label, text = cm.group(1), cm.group(2)
        else:
            label = rest[: -len(text)]
        _fit(path, i + 1, "Persona.label", "persona label", label.strip())
        i = next_nonblank(i + 1)
        if i >= n:
            raise err(i, f"story {number} is truncated: no 'weight N · round …' line")
        wm = _WEIGHT_RE.fullmatch(lines[i].strip())
        if not wm:
            raise err(
                i, f"story {number}: expected 'weight N · round to X' or 'weight N · round drawn'"
            )
        digits = wm.group(1).lstrip("0") or "0"
        if digits not in ("1", "2", "3"):
            raise err(i, f"story {number}: weight {_clip(digits, 20)} is outside 1–3")
        weight = int(digits)
        rnd = "drawn" if wm.group(3) else wm.group(2).strip()
        if rnd not in ("drawn", a, b):
            raise err(i, f"story {number}: round to {rnd!r}, which is neither {a!r} nor {b!r}")
        i += 1
        cells = []
        for product in (a, b):
            i = next_nonblank(i)
            if i >= n:
                raise err(i, f"story {number} is truncated: no cell for {product}")
            cell, i = _parse_cell(path, lines, i, product, err)
            cells.append(cell)
        stories.append(
            CompareStory(
                number, group, label.strip(), text, weight, rnd, (cells[0], cells[1]), start + 1
            )
        )
    return ComparePage(path, a, b, tuple(stories))


def _parse_cell(path, lines, i, product, err):
    n = len(lines)
    head = lines[i].strip()
    if not head.startswith(product):
        raise err(i, f"expected {product}'s cell, got {head[:60]!r}")
    body = head[len(product) :]
    m = re.fullmatch(
        r"(\S)([a-z/]+?)(probed|community|claimed|contradicted|auth-gated)?([0-9]+/10)?", body
    )
    if not m:
        raise err(i, f"cannot read {product}'s verdict line {head[:60]!r}")
    symbol, verdict, proof, quality = m.groups()
    if verdict not in VERDICTS:
        raise err(i, f"unknown verdict {verdict!r} for {product}")
    if verdict != "n/a" and VERDICT_SYMBOLS.get(symbol) != verdict:
        raise err(i, f"symbol {symbol!r} does not match verdict {verdict!r}")
    q = None
    if verdict != "n/a":
        if quality is None:
            raise err(i, f"{product}'s cell has no quality")
        q = _quality(path, i + 1, quality)
    if verdict in ("none", "n/a") and proof:
        raise err(i, f"a {verdict!r} cell has no proof, got {proof!r}")
    if verdict not in ("none", "n/a") and not proof:
        raise err(i, f"{product}'s {verdict!r} cell has no proof level")
    line_no = i + 1
    i += 1
    while i < n and not lines[i].strip():
        i += 1
    rationale = ""
    if (
        i < n
        and lines[i].startswith("   ")
        and not lines[i].startswith("   •")
        and lines[i].strip()
        not in (
            "proof ↗⚑ flag",
            "⚑ flag",
        )
    ):
        rationale = lines[i].strip()
        i += 1
    evidence = []
    while True:
        while i < n and not lines[i].strip():
            i += 1
        if i >= n:
            raise err(i, f"{product}'s cell is truncated: no 'proof ↗⚑ flag' / '⚑ flag' line")
        s = lines[i].strip()
        if s.startswith("• "):
            em = re.fullmatch(r"• \[([a-z0-9-]+)\] “(.*)”", s)
            if not em:
                raise err(i, f"cannot read evidence line {s[:60]!r}")
            _fit(path, i + 1, "Evidence.source", "evidence source", em.group(1))
            evidence.append(Evidence(em.group(1), em.group(2)))
            i += 1
            continue
        if s in ("proof ↗⚑ flag", "⚑ flag"):
            i += 1
            break
        raise err(i, f"unexpected line in {product}'s cell: {s[:60]!r}")
    if not rationale:
        raise err(line_no - 1, f"{product}'s cell has no rationale")
    return CellDetail(product, verdict, proof, q, rationale, tuple(evidence), line_no), i


# ---------------------------------------------------------------- entry point


def read_lines(path: str | Path) -> list[str]:
    """The file's lines (split at \\n only, so line numbers are what an editor shows), each cleaned
    by ``arena.text.clean_text``: a CRLF line end, control characters and a byte order mark go."""
    from arena.text import clean_text

    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + len(raw) - len(exc.object)  # the decoder's input lacks a byte order mark
        line = raw.count(b"\n", 0, at) + 1
        raise PageError(str(path), line, f"not UTF-8 text: {exc.reason} (byte {at})") from None
    return [clean_text(ln).replace("\n", "") for ln in text.split("\n")]


def is_overview(lines: list[str]) -> bool:
    return any(re.match(r"[0-9]+ user stories · [0-9]+ judged cells", ln) for ln in lines[:5])


def parse_files(paths: list[str]) -> tuple[OverviewPage, list[ComparePage]]:
    """Parse one overview page and any number of head-to-head pages, in any order."""
    loaded = []
    for p in paths:
        try:
            lines = read_lines(p)
        except OSError as exc:
            raise PageError(str(p), 0, f"cannot read file: {exc}") from None
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


# ---------------------------------------------------------------- cross-page checks


@dataclass(frozen=True)
class StoryDetail:
    """What the head-to-head pages say of one story beyond the matrix."""

    weight: int | None
    persona_label: str | None


@dataclass(frozen=True)
class ArenaRecord:
    overview: OverviewPage
    compares: tuple[ComparePage, ...]
    weights: dict[str, int]  # story text → weight, for the stories some page weighs
    persona_labels: dict[str, str]  # persona slug → label used by the head-to-head pages
    details: dict[tuple[str, str], CellDetail]  # (story text, product name) → detail


def _label_matches(label: str, persona: str) -> bool:
    from arena.text import persona_slug

    norm = persona_slug(label)
    if norm == persona:
        return True
    # "ai-native user" names the persona "ai-native": one trailing word may qualify the slug
    return norm.startswith(persona + "-") and "-" not in norm[len(persona) + 1 :]


def merge_pages(overview: OverviewPage, compares: Sequence[ComparePage]) -> ArenaRecord:
    """Check the head-to-head pages against the overview and against each other."""
    from arena import scoring

    stories = {s.text: s for s in overview.stories}
    products = set(overview.products)
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
            if not _label_matches(cs.persona_label, story.persona):
                raise PageError(
                    page.path,
                    cs.line,
                    f"persona {cs.persona_label!r} does not match the matrix's {story.persona!r}",
                )
            prev = labels.setdefault(story.persona, (cs.persona_label, where))
            if prev[0] != cs.persona_label:
                raise PageError(
                    page.path,
                    cs.line,
                    f"persona label {cs.persona_label!r} differs from {prev[0]!r} at {prev[1]}",
                )
            prev_w = weights.setdefault(cs.text, (cs.weight, where))
            if prev_w[0] != cs.weight:
                raise PageError(
                    page.path,
                    cs.line,
                    f"weight {cs.weight} differs from weight {prev_w[0]} at {prev_w[1]}",
                )
            marks = dict(story.cells)
            ins = []
            for cell in cs.cells:
                mark = marks[cell.product]
                if (mark.verdict, mark.proof, mark.quality) != (
                    cell.verdict,
                    cell.proof,
                    cell.quality,
                ):
                    raise PageError(
                        page.path,
                        cell.line,
                        f"{cell.product}: {cell.verdict} {cell.proof or ''} {cell.quality}/10 disagrees with "
                        f"the matrix ({mark.verdict} {mark.proof or ''} {mark.quality}/10, "
                        f"{overview.path}:{story.line})",
                    )
                key = (cs.text, cell.product)
                seen = details.setdefault(key, (cell, f"{page.path}:{cell.line}"))
                if (seen[0].rationale, seen[0].evidence) != (cell.rationale, cell.evidence):
                    raise PageError(
                        page.path,
                        cell.line,
                        f"{cell.product}'s cell differs from the same cell at {seen[1]}",
                    )
                ins.append(scoring.CellIn(0, cell.product, cell.verdict, cell.proof, cell.quality))
            if ins[0].verdict == "n/a" or ins[1].verdict == "n/a":
                raise PageError(
                    page.path, cs.line, "a head-to-head lists no story where one side is n/a"
                )
            expected = scoring.round_winner(ins[0], ins[1])
            if expected != cs.round:
                said = "drawn" if cs.round == "drawn" else f"to {cs.round}"
                rule = "drawn" if expected == "drawn" else f"to {expected}"
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


def read_arena(paths: Sequence[str]) -> ArenaRecord:
    overview, compares = parse_files(list(paths))
    return merge_pages(overview, compares)
