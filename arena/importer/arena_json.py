"""Reading an arena file (``arena.dataformat``, docs/arena-format.md) into the ``ArenaRecord`` the
import service writes: the same service, so the same guarantees as the page importer (atomic,
idempotent, moderation respected).

Every problem is a ``PageError`` whose message is ``FILE: /json/pointer: reason`` (RFC 6901: the
pointer names the value, ``/cells/12/quality``); a file that is not JSON at all names its line and
column instead. The file is checked whole before anything is written: its JSON Schema first
(``arena/schemas/``), then what a schema cannot say (references between sections, a complete
matrix, a verdict's proof and quality, names unique).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from arena import dataformat
from arena.importer.cursor import PageError
from arena.importer.records import (
    AdjacentRecord,
    ArenaRecord,
    CategoryRecord,
    CellDetail,
    Evidence,
    MatrixStory,
    OverviewPage,
    ProductRecord,
)
from arena.text import PRODUCT_SLUG_PATTERN, SLUG_PATTERN, arena_slugify, slug_problem
from stories.values import CellValue

# Files larger than this are refused before they are parsed (a 30 x 300 arena is a few MB).
MAX_BYTES = 256 * 1024 * 1024
# At most this many schema errors are listed (the first ones in document order).
MAX_ERRORS = 20
# Control characters a text may not hold (tab, newline and carriage return are fine): XML, and
# so the Atom feeds, cannot carry them.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class ArenaFileError(PageError):
    """A problem in an arena file: ``FILE: /json/pointer: reason``, or for text that is not JSON
    ``FILE: line L, column C: reason``."""

    def __init__(self, path: str, reason: str, line: int = 0, column: int = 0):
        super().__init__(path, line, reason)
        where = f"line {line}, column {column}: " if line and column else ""
        where = where or (f"line {line}: " if line else "")
        self.args = (f"{path}: {where}{reason}",)


class _DuplicateKey(ValueError):
    pass


def pointer(path: Iterable[str | int]) -> str:
    """An RFC 6901 JSON pointer (``/cells/3/quality``); ``/`` for the whole document."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else "/"


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def line_of(text: str, where: Sequence[str | int]) -> int | None:
    """The line of ``text`` (a valid JSON document) where the value at ``where`` starts: the
    values beside the path are skipped by the C decoder, so this is quick on a large file."""
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    for step in where:
        if at >= len(text) or text[at] not in "{[":
            return None
        closing = "}" if text[at] == "{" else "]"
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        index = 0
        while text[at] != closing:
            if closing == "}":
                key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
                at = _SPACE.match(text, at).end() + 1  # type: ignore[union-attr]  # the colon
                at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
                found = key == step
            else:
                found = index == step
                index += 1
            if found:
                break
            _, at = _DECODER.raw_decode(text, at)
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            if text[at] == ",":
                at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        else:
            return None
    return text.count("\n", 0, at) + 1


class _Errors:
    def __init__(self, path: str, text: str = ""):
        self.path = path
        self.text = text

    def where(self, path: Sequence[str | int]) -> str:
        """``/json/pointer (line N)``: the value's pointer and the line it starts on."""
        line = line_of(self.text, path) if self.text else None
        return pointer(path) + (f" (line {line})" if line else "")

    def at(self, where: Sequence[str | int], reason: str) -> ArenaFileError:
        return ArenaFileError(self.path, f"{self.where(where)}: {reason}")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def _load(path: str) -> tuple[Any, str]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ArenaFileError(path, f"cannot read file: {exc}") from None
    if len(raw) > MAX_BYTES:
        raise ArenaFileError(path, f"file is {len(raw)} bytes; at most {MAX_BYTES} are read")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ArenaFileError(
            path, f"not UTF-8 text: {exc.reason} (byte {exc.start})", line
        ) from None
    if not text.strip():
        raise ArenaFileError(path, "file is empty")
    try:
        return json.loads(text, object_pairs_hook=_pairs), text
    except json.JSONDecodeError as exc:
        raise ArenaFileError(path, f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except _DuplicateKey as exc:
        raise ArenaFileError(path, f"the key {str(exc)!r} appears twice in one object") from None
    except RecursionError:
        raise ArenaFileError(path, "nested too deeply to be an arena file") from None


_validator: Draft202012Validator | None = None


def _schema_check(document: Any, errors: _Errors) -> None:
    global _validator
    if _validator is None:
        _validator = Draft202012Validator(
            dataformat.schema(), format_checker=Draft202012Validator.FORMAT_CHECKER
        )
    if isinstance(document, dict) and document.get("format") == dataformat.FORMAT:
        version = document.get("version")
        if isinstance(version, int) and version > dataformat.VERSION:
            raise errors.at(
                ["version"],
                f"format version {version} is newer than this site reads "
                f"({dataformat.VERSION}); export the arena again with this site's version",
            )
    found = sorted(
        _validator.iter_errors(document),
        key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, p) for p in e.absolute_path],
    )
    if found:
        lines = [f"{errors.where(e.absolute_path)}: {_message(e)}" for e in found[:MAX_ERRORS]]
        more = len(found) - MAX_ERRORS
        if more > 0:
            lines.append(f"... and {more} more")
        raise ArenaFileError(errors.path, f"\n{errors.path}: ".join(lines))


# A slug pattern's error says the rule (arena.text) rather than quote the regular expression.
_SLUG_PATTERNS = {SLUG_PATTERN: False, PRODUCT_SLUG_PATTERN: True}


def _message(error: ValidationError) -> str:
    if error.validator == "pattern" and error.validator_value in _SLUG_PATTERNS:
        problem = slug_problem(error.instance, product=_SLUG_PATTERNS[error.validator_value])
        if problem:
            return _short(problem)
    return _short(error.message)


def _short(message: str, size: int = 300) -> str:
    """A message cut to ``size`` characters (the schema's messages quote the value whole)."""
    return message if len(message) <= size else message[: size - 1] + "…"


def _texts(value: Any, where: list[str | int], errors: _Errors) -> None:
    """No control character in any text of the document (the schema cannot say it)."""
    if isinstance(value, str):
        m = _CONTROL.search(value)
        if m:
            raise errors.at(
                where,
                f"holds the control character U+{ord(m.group()):04X} at position {m.start()}",
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _texts(item, [*where, key], errors)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _texts(item, [*where, i], errors)


def _date(value: str | None, where: list[str | int], errors: _Errors) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise errors.at(where, f"{value!r} is not a date (YYYY-MM-DD)") from None


def _same(value: Any) -> Any:
    return value


def _unique(
    items: Sequence[Any],
    key: str,
    section: str,
    errors: _Errors,
    *,
    made: Callable[[Any], Any] = _same,
) -> None:
    seen: dict[Any, int] = {}
    for i, item in enumerate(items):
        value = made(item[key])
        if value in seen:
            raise errors.at(
                [section, i, key], f"{item[key]!r} is already used by /{section}/{seen[value]}"
            )
        seen[value] = i


def read_arena_json(path: str | Path) -> ArenaRecord:
    """The arena an arena file states, every rule checked; else a ``PageError``."""
    path = str(path)
    document, text = _load(path)
    errors = _Errors(path, text)
    _schema_check(document, errors)
    _texts(document, [], errors)
    return _record(document, path, errors)


def _record(doc: dict[str, Any], path: str, errors: _Errors) -> ArenaRecord:
    arena = doc["arena"]
    slug = arena.get("slug") or arena_slugify(arena["name"])
    if not slug:
        raise errors.at(["arena", "name"], "has no letters or digits to make a URL slug of")
    # (the schema's patterns say the same: a guard for a slug made of the name)
    if problem := slug_problem(slug):
        raise errors.at(["arena", "slug" if "slug" in arena else "name"], problem)

    categories = doc["categories"]
    _unique(categories, "name", "categories", errors, made=arena_slugify)
    groups: dict[str, set[str]] = {}
    for i, c in enumerate(categories):
        names = c.get("groups", [])
        if len(set(names)) != len(names):
            raise errors.at(["categories", i, "groups"], "names a group twice")
        groups[c["name"]] = set(names)

    personas = doc["personas"]
    _unique(personas, "slug", "personas", errors)
    labels = {p["slug"]: p["label"] for p in personas}

    products = doc["products"]
    for p in products:
        p.setdefault("slug", arena_slugify(p["name"]))
    for i, p in enumerate(products):
        if not p["slug"]:
            raise errors.at(["products", i, "name"], "has no letters or digits to make a slug of")
        if problem := slug_problem(p["slug"], product=True):
            raise errors.at(["products", i, "slug"], problem)
    _unique(products, "name", "products", errors)
    _unique(products, "slug", "products", errors)
    by_slug = {p["slug"]: p["name"] for p in products}

    stories = doc["stories"]
    _unique(stories, "key", "stories", errors)
    _unique(stories, "text", "stories", errors)
    story_by_key: dict[int, dict[str, Any]] = {}
    for i, s in enumerate(stories):
        if s["category"] not in groups:
            raise errors.at(["stories", i, "category"], f"{s['category']!r} is not a category")
        group = s.get("group")
        if group is not None and group not in groups[s["category"]]:
            raise errors.at(
                ["stories", i, "group"], f"{group!r} is not a group of {s['category']!r}"
            )
        if s["persona"] not in labels:
            raise errors.at(["stories", i, "persona"], f"{s['persona']!r} is not a persona")
        story_by_key[s["key"]] = s

    cells: dict[tuple[int, str], CellDetail] = {}
    values: dict[tuple[int, str], CellValue] = {}
    for i, c in enumerate(doc["cells"]):
        where: list[str | int] = ["cells", i]
        if c["story"] not in story_by_key:
            raise errors.at([*where, "story"], f"no story has the key {c['story']}")
        if c["product"] not in by_slug:
            raise errors.at([*where, "product"], f"{c['product']!r} is not a product's slug")
        pair = (c["story"], c["product"])
        if pair in values:
            raise errors.at(where, "a second cell for the same story and product")
        value = CellValue(c["verdict"], c.get("proof"), c.get("quality"))
        for field, message in value.errors().items():
            raise errors.at([*where, field], message)
        values[pair] = value
        evidence = tuple(
            Evidence(
                source=e["source"],
                quote=e["quote"],
                url=e.get("url") or "",
                checked_on=_date(
                    e.get("checked_on"), [*where, "evidence", j, "checked_on"], errors
                ),
            )
            for j, e in enumerate(c.get("evidence", []))
        )
        rationale = c.get("rationale")
        cells[pair] = CellDetail(
            product=by_slug[c["product"]],
            verdict=value.verdict,
            proof=value.proof,
            quality=value.quality,
            rationale=rationale or "",
            evidence=evidence,
            line=0,
            published=rationale is not None,
            evidence_as_of=_date(c.get("evidence_as_of"), [*where, "evidence_as_of"], errors),
        )
    for s in stories:
        for p in products:
            if (s["key"], p["slug"]) not in values:
                raise errors.at(
                    ["cells"],
                    f"no cell for the story {s['key']} and the product {p['slug']!r}: every "
                    "product is judged on every story",
                )

    overview = OverviewPage(
        path=path,
        name=arena["name"],
        description=arena.get("description", ""),
        story_count=len(stories),
        cell_count=len(values),
        updated=_date(arena["updated"], ["arena", "updated"], errors),  # type: ignore[arg-type]
        evidence_as_of=_date(arena.get("evidence_as_of"), ["arena", "evidence_as_of"], errors),  # type: ignore[arg-type]
        products=tuple(p["name"] for p in products),
        leaderboard=(),
        personas=(),
        categories=tuple(
            CategoryRecord(
                name=c["name"], blurb=c.get("blurb", ""), groups=tuple(c.get("groups", []))
            )
            for c in categories
        ),
        stories=tuple(
            MatrixStory(
                text=s["text"],
                persona=s["persona"],
                category=s["category"],
                group=s.get("group"),
                cells=tuple((p["name"], values[(s["key"], p["slug"])]) for p in products),
                line=0,
            )
            for s in stories
        ),
        adjacent=tuple(
            AdjacentRecord(
                name=a["name"],
                product_count=a["product_count"],
                leader=a["leader"],
                shares=a.get("shares") or None,
            )
            for a in doc.get("adjacent", [])
        ),
    )
    _unique(doc.get("adjacent", []), "name", "adjacent", errors)
    return ArenaRecord(
        overview=overview,
        compares=(),
        # a story without a weight gets the default one, reported as the page import does
        weights={s["text"]: s["weight"] for s in stories if "weight" in s},
        persona_labels=labels,
        details={
            (story_by_key[key]["text"], by_slug[product]): detail
            for (key, product), detail in cells.items()
        },
        slug=slug,
        products={
            p["name"]: ProductRecord(
                slug=p["slug"],
                tier=p.get("tier", ""),
                stars=p.get("stars"),
                stars_growth=p.get("stars_growth"),
                npm_weekly=p.get("npm_weekly"),
                pypi_weekly=p.get("pypi_weekly"),
                popularity_as_of=_date(
                    p.get("popularity_as_of"), ["products", i, "popularity_as_of"], errors
                ),
            )
            for i, p in enumerate(products)
        },
        exact=True,
    )
