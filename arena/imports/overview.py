"""The arena overview page: title line ``<Name> arena<Name>``, the "N user stories · M judged cells"
line, leaderboard, best by user type, story matrix, legend, adjacent arenas."""

from __future__ import annotations

import re
from datetime import date

from arena.imports.cursor import Cursor
from arena.imports.limits import figure, fit, future_problem, max_value, number, short, slug
from arena.imports.matrix import StoryMatrix
from arena.imports.records import (
    AdjacentRecord,
    LeaderboardRow,
    MatrixStory,
    OverviewPage,
    PersonaWinner,
)

_DATE = r"([0-9]{4}-[0-9]{2}-[0-9]{2})"
_COUNTS_RE = re.compile(
    rf"([0-9]+) user stories · ([0-9]+) judged cells · updated {_DATE} · Evidence as of {_DATE}"
)
_TITLE_RE = re.compile(r"(.+) arena\1")  # the arena's title, and each adjacent arena's
_RUNNER_UP_RE = re.compile(r"Runner-up: (.+) \(([0-9]+)/100\)")
_FIGURES = (
    ("stars", "★", re.compile(r"★ ([0-9.]+[kM]?)")),
    ("stars_growth", "▲", re.compile(r"▲ ([0-9.]+[kM]?)/yr")),
    ("npm_weekly", "npm", re.compile(r"npm ([0-9.]+[kM]?)/wk")),
    ("pypi_weekly", "pypi", re.compile(r"pypi ([0-9.]+[kM]?)/wk")),
)


def is_overview(lines: list[str]) -> bool:
    return any(re.match(r"[0-9]+ user stories · [0-9]+ judged cells", ln) for ln in lines[:5])


def parse_overview(path: str, lines: list[str]) -> OverviewPage:
    cur = Cursor(path, lines)
    head, counts_line = _head(cur, lines)
    leader_lines = _leaderboard_lines(cur)
    personas = _best_by_user_type(cur)
    products, categories, stories = StoryMatrix(cur).read()
    adjacent = _adjacent_arenas(cur)
    # the leaderboard names products, which the matrix lists
    leaderboard = tuple(_leader_row(cur.at(line), products) for line in leader_lines)
    _check_leaderboard(cur, leaderboard)
    _check_matrix(cur, head, counts_line, stories, products)
    return OverviewPage(
        path,
        *head,
        products=products,
        leaderboard=leaderboard,
        personas=personas,
        categories=categories,
        stories=stories,
        adjacent=adjacent,
    )


# What the page's first lines say, the first fields of its ``OverviewPage`` after the path: its
# name, description, story and cell counts, and the dates of its update and of its evidence.
type _Head = tuple[str, str, int, int, date, date]


def _head(cur: Cursor, lines: list[str]) -> tuple[_Head, int]:
    """The page's head, and the line of its counts."""
    m = _TITLE_RE.fullmatch(cur.take())
    if not m:
        raise cur.error("first line should be '<Name> arena<Name>'")
    with cur.checks():
        name = fit("Arena.name", "arena name", m.group(1))
        slug("Arena.slug", "arena name", name)
    if len(lines) < 4:
        raise cur.error_at(len(lines), "page ends before the story count line")
    description = cur.take().strip()
    with cur.checks():
        fit("Arena.description", "arena description", description)
    m = _COUNTS_RE.fullmatch(cur.take().strip())
    if not m:
        raise cur.error(
            "expected 'N user stories · M judged cells · updated DATE · Evidence as of DATE'"
        )
    with cur.checks():
        story_count = number(m.group(1), "story count")
        cell_count = number(m.group(2), "judged cell count")
    updated = _date(cur, m.group(3), "its updated date")
    evidence_as_of = _date(cur, m.group(4), "its evidence date")
    return (name, description, story_count, cell_count, updated, evidence_as_of), cur.lineno


def _check_leaderboard(cur: Cursor, leaderboard: tuple[LeaderboardRow, ...]) -> None:
    """No product ranked twice."""
    ranked: dict[str, int] = {}
    for row in leaderboard:
        if row.product in ranked:
            raise cur.error_at(
                row.line,
                f"product {short(row.product)} appears twice in the leaderboard "
                f"(first on line {ranked[row.product]})",
            )
        ranked[row.product] = row.line


def _check_matrix(
    cur: Cursor,
    head: _Head,
    counts_line: int,
    stories: tuple[MatrixStory, ...],
    products: tuple[str, ...],
) -> None:
    """The matrix has the stories and cells the counts line says, no story twice."""
    _, _, story_count, cell_count, _, _ = head
    if len(stories) != story_count:
        raise cur.error_at(
            counts_line,
            f"the page says {story_count} user stories but its matrix has {len(stories)}",
        )
    if len(stories) * len(products) != cell_count:
        raise cur.error_at(
            counts_line,
            f"the page says {cell_count} judged cells but its matrix has "
            f"{len(stories) * len(products)}",
        )
    seen: dict[str, int] = {}
    for s in stories:
        if s.text in seen:
            raise cur.error_at(
                s.line, f"story {s.text[:60]!r} already appears on line {seen[s.text]}"
            )
        seen[s.text] = s.line


def _date(cur: Cursor, text: str, what: str) -> date:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise cur.error(f"bad date {text!r}") from None
    if problem := future_problem(day):
        raise cur.error(f"{what} {problem}")
    return day


# ---------------------------------------------------------------- leaderboard


def _leaderboard_lines(cur: Cursor) -> list[int]:
    """The lines of the leaderboard's rows (read once the matrix has named the products)."""
    if not cur.skip_until(lambda line: line.startswith("| 1 |")):
        raise cur.error("no leaderboard rows found")
    rows = []
    while (line := cur.peek()) is not None and line.startswith("| "):
        cur.take()
        rows.append(cur.lineno)
    return rows


def _leader_row(cur: Cursor, products: tuple[str, ...]) -> LeaderboardRow:
    """The row on the line ``cur`` has just read."""
    cols = [c.strip() for c in cur.line.strip().split(" | ")]
    cols[0] = cols[0].lstrip("| ").strip()
    if not re.fullmatch(r"[0-9]+", cols[0]):
        raise cur.error(f"bad leaderboard rank {short(cols[0])}")
    with cur.checks():
        rank = number(cols[0], "leaderboard rank")
    if len(cols) < 2:
        raise cur.error("leaderboard row has no product column")
    m = re.fullmatch(r"(.+?) ?vs (.+) ↗", cols[1])
    if not m:
        raise cur.error(f"cannot read leaderboard product {cols[1]!r}")
    head, vs = m.group(1).strip(), m.group(2).strip()
    product = next((p for p in sorted(products, key=len, reverse=True) if head.startswith(p)), None)
    if product is None:
        raise cur.error(f"leaderboard names {head!r}, which is not one of the matrix's products")
    with cur.checks():
        tier = fit("Product.tier", "tier", head[len(product) :].strip())
    scores: list[int] = []
    j = 2
    while j < len(cols) and re.fullmatch(r"[0-9]+/100", cols[j]):
        with cur.checks():
            scores.append(number(cols[j].split("/")[0], "score"))
        j += 1
    popularity = cols[j] if j < len(cols) else ""
    figures: dict[str, str | None] = {}
    for key, mark, pattern in _FIGURES:
        fm = pattern.search(popularity)
        figures[key] = fm.group(1) if fm else None
        if fm:
            with cur.checks():
                figure(f"Product.{key}", f"{mark} {fm.group(1)}")
    rest = " | ".join(cols[j + 1 :])
    vm = re.search(r"([0-9]+)/([0-9]+) verified(?: · ([0-9]+) disputed)?", rest)
    im = re.search(r"([0-9]+)/100 integrity", rest)
    if not vm or not im:
        raise cur.error("leaderboard row lacks 'V/E verified' or 'N/100 integrity'")
    with cur.checks():
        return LeaderboardRow(
            rank=rank,
            product=product,
            tier=tier,
            vs=vs,
            scores=tuple(scores),
            verified=number(vm.group(1), "verified count"),
            with_evidence=number(vm.group(2), "evidenced count"),
            disputed=number(vm.group(3) or "0", "disputed count"),
            integrity=number(im.group(1), "integrity"),
            line=cur.lineno,
            **figures,
        )


# ---------------------------------------------------------------- best by user type


def _best_by_user_type(cur: Cursor) -> tuple[PersonaWinner, ...]:
    """The "Best for <persona>" cards, up to the story matrix's heading (taken)."""
    personas = []
    while (line := cur.peek()) is not None and not line.startswith("Story matrix"):
        cur.take()
        if line.startswith("Best for "):
            personas.append(_persona_winner(cur, line[len("Best for ") :].strip()))
    cur.take("no story matrix found")
    return tuple(personas)


def _persona_winner(cur: Cursor, persona: str) -> PersonaWinner:
    """Winner, ``N/100``, maybe ``Runner-up: NAME (N/100)``, ``N <persona> stories scored``."""
    ends = f"page ends inside 'Best for {persona}'"
    winner = cur.take(ends).strip()
    sm = re.fullmatch(r"([0-9]+)/100", cur.take(ends).strip())
    if not sm:
        raise cur.error("expected the winner's score 'N/100'")
    with cur.checks():
        score = number(sm.group(1), "score")
    runner_up, runner_up_score = None, None
    rm = _RUNNER_UP_RE.fullmatch(cur.take(ends).strip())
    if rm:
        with cur.checks():
            runner_up, runner_up_score = rm.group(1), number(rm.group(2), "score")
        cur.take(ends)
    cm = re.fullmatch(r"([0-9]+) (\S+) stories scored", cur.line.strip())
    if not cm:
        raise cur.error("expected 'N <persona> stories scored'")
    with cur.checks():
        story_count = number(cm.group(1), "story count")
    return PersonaWinner(persona, winner, score, runner_up, runner_up_score, story_count)


# ---------------------------------------------------------------- legend and adjacent arenas


def _adjacent_arenas(cur: Cursor) -> tuple[AdjacentRecord, ...]:
    """Everything after the matrix: the legend, which is skipped, and the adjacent arenas
    (``<Name> arena<Name>``, ``N products · leader: NAME``, optionally ``shares: CATEGORY``)."""
    adjacent: list[AdjacentRecord] = []
    first_lines: dict[str, int] = {}
    while not cur.done:
        am = _TITLE_RE.fullmatch(cur.take().strip())
        if not am or cur.done:
            continue
        with cur.checks():
            name = fit("AdjacentArena.name", "adjacent arena name", am.group(1))
        if name in first_lines:
            raise cur.error(
                f"adjacent arena {short(name)} appears twice (first on line {first_lines[name]})"
            )
        first_lines[name] = cur.lineno
        pm = re.fullmatch(r"([0-9]+) products · leader: (.+)", cur.take().strip())
        if not pm:
            raise cur.error("expected 'N products · leader: NAME' under an adjacent arena")
        with cur.checks():
            count = number(
                pm.group(1),
                "adjacent arena product count",
                max_value("AdjacentArena.product_count"),
            )
            leader = fit("AdjacentArena.leader", "adjacent arena leader", pm.group(2))
        shares = None
        if (line := cur.peek()) is not None and line.startswith("shares: "):
            cur.take()
            shares = line[len("shares: ") :].strip()
            with cur.checks():
                fit("AdjacentArena.shares", "shared category", shares)
        adjacent.append(AdjacentRecord(name, count, leader, shares))
    return tuple(adjacent)
