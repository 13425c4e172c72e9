"""What both readers share: a page's lines read one at a time (every error names file and line),
the limits of what the database stores, and the plain frozen records the readers return."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from django.apps import apps
from django.conf import settings
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Field

from core.text import arena_slugify, parse_figure
from stories import freshness
from stories.values import CellValue, CellValueError, Quote

ANY_COUNT_MAX = 2**31 - 1  # (a count not stored is still an int compared cheaply)
# Text columns are unbounded; these bound them (the schema's maxLength says the same, a test checks)
TEXT_LIMITS = {"Arena.description": 5_000, "Cell.rationale": 20_000, "Evidence.quote": 5_000}


class PageError(ValueError):
    """``FILE:LINE: reason``, or ``FILE: reason`` (line 0: an arena file names a JSON pointer)."""

    def __init__(self, path: str, line: int, reason: str):
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")


def read_text(path: str) -> str:
    """A file's text: UTF-8 (a byte order mark dropped), at most ``ARENA_IMPORT_MAX_BYTES``."""
    limit = settings.ARENA_IMPORT_MAX_BYTES
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)  # a larger file is refused before it is read whole
    except OSError as exc:
        raise PageError(path, 0, f"cannot read file: {exc}") from None
    if len(raw) > limit:
        reason = "bytes (ARENA_IMPORT_MAX_BYTES); nothing of it is read"
        raise PageError(path, 0, f"file is larger than {limit} {reason}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + len(raw) - len(exc.object)  # the decoder's input lacks a byte order mark
        line = raw.count(b"\n", 0, at) + 1
        raise PageError(path, line, f"not UTF-8 text: {exc.reason} (byte {at})") from None


class Cursor:
    """A page's lines, read one at a time; ``lineno`` is the line last taken, which errors name."""

    def __init__(self, path: str, lines: Sequence[str], lineno: int = 0):
        self.path, self.lines, self.lineno = path, lines, lineno

    @property
    def line(self) -> str:
        return self.lines[self.lineno - 1]

    @property
    def done(self) -> bool:
        return self.lineno >= len(self.lines)

    def peek(self) -> str | None:
        return None if self.done else self.lines[self.lineno]

    def take(self, reason: str = "the page ends too early") -> str:
        if self.done:
            raise self.error(reason)
        self.lineno += 1
        return self.line

    def skip_until(self, found: Callable[[str], bool]) -> bool:
        """Skip lines until the next one is ``found``; False at the page's end."""
        while not self.done and not found(self.lines[self.lineno]):
            self.lineno += 1
        return not self.done

    def skip_blank(self) -> None:
        self.skip_until(lambda line: bool(line.strip()))

    def error(self, reason: str, lineno: int | None = None) -> PageError:
        line = self.lineno if lineno is None else lineno
        return PageError(self.path, max(1, min(line, len(self.lines))), reason)

    def once(self, seen: dict[str, int], key: str, what: str, lineno: int | None = None) -> None:
        """Refuse ``key`` a second time: ``<what> (first on line N)``."""
        if key in seen:
            raise self.error(f"{what} (first on line {seen[key]})", lineno)
        seen[key] = self.lineno if lineno is None else lineno

    @contextmanager
    def checks(self) -> Iterator[None]:
        try:
            yield
        except CellValueError as exc:
            raise self.error(str(exc)) from None

    def fit(self, label: str, what: str, text: str) -> str:
        """``text`` if it fits the model field ``label`` (or the ``TEXT_LIMITS`` of a text column)."""
        limit = TEXT_LIMITS.get(label) or max_length(label)
        if len(text) > limit:
            said = f"is {len(text)} characters long; at most {limit} fit ({label})"
            raise self.error(f"{what} {short(text)} {said}")
        return text

    def number(self, digits: str, what: str, maximum: int = ANY_COUNT_MAX) -> int:
        significant = digits.lstrip("0") or "0"
        if len(significant) > len(str(maximum)) or int(significant) > maximum:
            raise self.error(f"{what} {short(digits, 20)} is larger than {maximum}")
        return int(significant)

    def slug(self, label: str, what: str, name: str) -> None:
        """The site's slug of ``name`` (always a valid one) must not be empty and must fit."""
        made = arena_slugify(name)
        if not made:
            raise self.error(f"{what} {short(name)} has no letters or digits to make a URL slug of")
        if len(made) > (limit := max_length(label)):
            said = f"gives a slug of {len(made)} characters; at most {limit} fit ({label})"
            raise self.error(f"{what} {short(name)} {said}")

    def same_slug(self, seen: dict[str, str], what: str, name: str) -> None:
        made = arena_slugify(name)
        if (other := seen.setdefault(made, name)) != name:
            raise self.error(f"{what} {short(other)} and {short(name)} have the same slug {made!r}")

    def figure(self, label: str, shown: str) -> int:
        """A popularity figure as shown (``★ 23k``)."""
        try:
            value = parse_figure(shown.split(" ", 1)[1])
        except ValueError as exc:
            raise self.error(f"popularity figure {short(shown)}: {exc}") from None
        if value is None:
            raise self.error(f"popularity figure {short(shown)} has no number")
        if value > (limit := max_value(label)):
            raise self.error(f"popularity figure {short(shown)} is larger than {limit} ({label})")
        return value


def future_problem(day: date | None) -> str | None:
    """Why ``day`` cannot be claimed: after today it would outrank a moderator's decision today."""
    today = freshness.today()
    if day is None or day <= today:
        return None
    return f"{day:%Y-%m-%d} is after today ({today:%Y-%m-%d}); a file cannot be dated in the future"


def _model_field(label: str) -> Field:
    model, name = label.split(".")
    found = next(m for m in apps.get_models() if m.__name__ == model)._meta.get_field(name)
    return cast(Field, found)


@functools.cache
def max_length(label: str) -> int:
    return cast(int, _model_field(label).max_length)


@functools.cache
def max_value(label: str) -> int:
    """The largest value an integer model field holds on every database Django supports."""
    return BaseDatabaseOperations.integer_field_ranges[_model_field(label).get_internal_type()][1]


def short(text: str, size: int = 40) -> str:
    return repr(text if len(text) <= size else text[:size] + "…")


@dataclass(frozen=True)
class MatrixStory:
    text: str
    persona: str
    category: str
    group: str | None
    cells: tuple[tuple[str, CellValue], ...]  # (product name, value) in column order
    line: int = 0  # (an arena file has none to give)


@dataclass(frozen=True)
class CategoryRecord:
    name: str
    blurb: str
    groups: tuple[str | None, ...]


@dataclass(frozen=True)
class LeaderboardRow:  # (the site computes the scores again; tests compare them with these)
    product: str
    vs: str
    verified: int
    with_evidence: int
    disputed: int


@dataclass(frozen=True)
class OverviewPage:
    path: str
    name: str
    description: str
    updated: date
    evidence_as_of: date
    products: tuple[str, ...]
    categories: tuple[CategoryRecord, ...]
    stories: tuple[MatrixStory, ...]
    adjacent: tuple[dict[str, Any], ...]  # each AdjacentArena's values
    leaderboard: tuple[LeaderboardRow, ...] = ()


@dataclass(frozen=True)
class CellDetail:
    product: str
    value: CellValue
    rationale: str
    evidence: tuple[Quote, ...]
    line: int
    published: bool = True  # (an arena file states these two)
    evidence_as_of: date | None = None


@dataclass(frozen=True)
class CompareStory:
    number: int
    group: str | None
    persona_label: str
    text: str
    weight: int
    round: str  # product name or arena.scoring.DRAWN
    cells: tuple[CellDetail, CellDetail]
    line: int


@dataclass(frozen=True)
class ComparePage:
    path: str
    a: str
    b: str
    stories: tuple[CompareStory, ...]


@dataclass(frozen=True)
class ArenaRecord:
    overview: OverviewPage
    weights: dict[str, int]  # story text → weight, for the stories some page weighs
    persona_labels: dict[str, str]  # persona slug → label used by the head-to-head pages
    details: dict[tuple[str, str], CellDetail]  # (story text, product name) → detail
    products: dict[str, dict[str, Any]]  # by name: the model fields' values
    compares: tuple[ComparePage, ...] = ()
    # an arena file's: its slug, every cell stated in full (``exact``), the sources (None: kept)
    slug: str | None = None
    exact: bool = False
    sources: tuple[dict[str, Any], ...] | None = None  # the Source rows' values
