"""An arena file (docs/arena-format.md) read into an ``ArenaRecord``: its schema, control characters,
then what a schema cannot say. Every problem is ``FILE: /json/pointer (line N): …``."""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from arena import dataformat
from arena.imports.reading import (
    ArenaRecord,
    CategoryRecord,
    CellDetail,
    MatrixStory,
    OverviewPage,
    PageError,
    future_problem,
    read_text,
)
from core.text import PRODUCT_SLUG_PATTERN, SLUG_PATTERN, arena_slugify, slug_problem
from core.uris import uri_encode, uri_problem
from products.facts import licence_problem
from stories.values import CellValue, Quote

# No text holds a control character (the Atom feeds' XML cannot carry one; a line break in a name
# would break a mail header) but tab and newline in long texts, nor a lone surrogate (unstorable).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_ONE_LINE_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
LONG_TEXTS = frozenset({"description", "rationale", "quote"})
MAX_ERRORS = 20  # schema errors listed at once, in document order
_SLUG_PATTERNS = {SLUG_PATTERN: False, PRODUCT_SLUG_PATTERN: True}
_PRODUCT_CHECKED: tuple[str, ...] = ("popularity_as_of", "website", "repository")
_PRODUCT_CHECKED += ("documentation", "first_release", "latest_release")
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")

type Where = Sequence[str | int]


def pointer(path: Iterable[str | int]) -> str:
    """An RFC 6901 JSON pointer (``/cells/3/quality``); ``/`` for the whole document."""
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def line_of(text: str, where: Where) -> int | None:
    """The line of ``text`` (a valid JSON document) where the value at ``where`` starts."""

    def space(at: int) -> int:
        return _SPACE.match(text, at).end()  # type: ignore[union-attr]

    at = space(0)
    for step in where:
        if at >= len(text) or text[at] not in "{[":
            return None
        closing = "}" if text[at] == "{" else "]"
        at, index = space(at + 1), 0
        while text[at] != closing:
            if closing == "}":
                key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
                at = space(space(at) + 1)  # past the colon
                found = key == step
            else:
                found, index = index == step, index + 1
            if found:
                break
            at = space(_DECODER.raw_decode(text, at)[1])
            if text[at] == ",":
                at = space(at + 1)
        else:
            return None
    return text.count("\n", 0, at) + 1


class _File:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text

    def where(self, where: Where) -> str:
        line = line_of(self.text, where)
        return pointer(where) + (f" (line {line})" if line else "")

    def at(self, where: Where, reason: str) -> PageError:
        return PageError(self.path, 0, f"{self.where(where)}: {reason}")

    def date(self, value: str | None, where: Where) -> date | None:
        day = date.fromisoformat(value) if value is not None else None
        if problem := future_problem(day):
            raise self.at(where, problem)
        return day

    def uri(self, value: str | None, where: Where) -> str:
        encoded = uri_encode(value or "")
        if problem := uri_problem(encoded):
            raise self.at(where, f"{value!r}: {problem}")
        return encoded

    def unique(
        self, items: Sequence[Any], key: str, section: str, made: Callable = lambda v: v
    ) -> None:
        """No two ``items`` alike in ``key`` (as ``made`` makes them)."""
        seen: dict[Any, int] = {}
        for i, item in enumerate(items):
            if (value := made(item[key])) in seen:
                said = f"{item[key]!r} is already used by /{section}/{seen[value]}"
                raise self.at([section, i, key], said)
            seen[value] = i


def read_arena_json(path: str | Path) -> ArenaRecord:
    """The arena an arena file states, every rule checked; else a ``PageError``."""
    file = _File(str(path), read_text(str(path)))
    if not file.text.strip():
        raise PageError(file.path, 0, "file is empty")
    try:
        doc = json.loads(file.text, object_pairs_hook=dataformat.unique_object)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise PageError(file.path, 0, f"{where}: not valid JSON: {exc.msg}") from None
    except dataformat.DuplicateKey as exc:
        raise PageError(file.path, 0, f"the key {exc.key!r} appears twice in one object") from None
    except RecursionError:
        raise PageError(file.path, 0, "nested too deeply to be an arena file") from None
    _schema_check(doc, file)
    _texts_check(doc, [], file)
    return _record(doc, file)


@functools.cache
def _validator() -> Draft202012Validator:
    schema = dataformat.schema()
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _schema_check(document: Any, file: _File) -> None:
    if isinstance(document, dict) and document.get("format") == dataformat.FORMAT:
        version = document.get("version")
        if isinstance(version, int) and version > dataformat.VERSION:
            raise file.at(
                ["version"],
                f"format version {version} is newer than this site reads "
                f"({dataformat.VERSION}); export the arena again with this site's version",
            )
    found = sorted(
        _validator().iter_errors(document),
        key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, p) for p in e.absolute_path],
    )
    lines = [f"{file.where(e.absolute_path)}: {_message(e)}" for e in found[:MAX_ERRORS]]
    if len(found) > MAX_ERRORS:
        lines.append(f"... and {len(found) - MAX_ERRORS} more")
    if lines:
        raise PageError(file.path, 0, f"\n{file.path}: ".join(lines))


def _message(error: ValidationError) -> str:
    if error.validator == "maxLength" and isinstance(error.instance, str):
        # (the schema's own message quotes the value whole, and a cut quote hides the reason)
        held = f"{_short(repr(error.instance), 60)} is {len(error.instance)} characters long"
        return f"{held}; at most {error.validator_value} are allowed"
    if error.validator == "pattern" and error.validator_value in _SLUG_PATTERNS:
        if problem := slug_problem(error.instance, product=_SLUG_PATTERNS[error.validator_value]):
            return _short(problem)
    return _short(error.message)


def _short(message: str, size: int = 300) -> str:
    return message if len(message) <= size else message[: size - 1] + "…"


def _texts_check(value: Any, where: list[str | int], file: _File) -> None:
    if isinstance(value, str):
        key = next((step for step in reversed(where) if isinstance(step, str)), "")
        long = key in LONG_TEXTS
        if m := (_CONTROL if long else _ONE_LINE_CONTROL).search(value):
            code = ord(m.group())
            what = "a lone surrogate" if 0xD800 <= code <= 0xDFFF else "the control character"
            note = "" if long or m.group() not in "\t\n\r" else " (names and titles are one line)"
            raise file.at(where, f"holds {what} U+{code:04X} at position {m.start()}{note}")
    elif isinstance(value, dict | list):  # (every key is one the schema names)
        for step, item in value.items() if isinstance(value, dict) else enumerate(value):
            _texts_check(item, [*where, step], file)


def _record(doc: dict[str, Any], file: _File) -> ArenaRecord:
    arena, products, stories = doc["arena"], doc["products"], doc["stories"]
    # (the schema checks a given slug; one made of the name is valid, or empty)
    if not (slug := arena.get("slug") or arena_slugify(arena["name"])):
        raise file.at(["arena", "name"], "has no letters or digits to make a URL slug of")
    file.unique(doc["categories"], "name", "categories", made=arena_slugify)
    groups = {c["name"]: set(c.get("groups", [])) for c in doc["categories"]}
    file.unique(doc["personas"], "slug", "personas")
    labels = {p["slug"]: p["label"] for p in doc["personas"]}
    by_slug = _product_names(products, file)
    story_by_key = _stories(stories, groups, labels, file)
    cells = _cells(doc["cells"], story_by_key, by_slug, file)
    adjacent = doc.get("adjacent", [])

    def row(key: int) -> tuple[tuple[str, CellValue], ...]:
        return tuple((p["name"], cells[(key, p["slug"])].value) for p in products)

    overview = OverviewPage(
        file.path,
        arena["name"],
        arena.get("description", ""),
        file.date(arena["updated"], ["arena", "updated"]),  # type: ignore[arg-type]
        file.date(arena.get("evidence_as_of"), ["arena", "evidence_as_of"]),  # type: ignore[arg-type]
        tuple(p["name"] for p in products),
        tuple(
            CategoryRecord(c["name"], c.get("blurb", ""), tuple(c.get("groups", [])))
            for c in doc["categories"]
        ),
        tuple(
            MatrixStory(s["text"], s["persona"], s["category"], s.get("group"), row(s["key"]))
            for s in stories
        ),
        tuple({**a, "shares": a.get("shares") or ""} for a in adjacent),
    )
    file.unique(adjacent, "name", "adjacent")
    return ArenaRecord(
        overview=overview,
        # a story without a weight gets the default one, reported as the page import does
        weights={s["text"]: s["weight"] for s in stories if "weight" in s},
        persona_labels=labels,
        details={
            (story_by_key[key]["text"], by_slug[product]): detail
            for (key, product), detail in cells.items()
        },
        slug=slug,
        products={p["name"]: _product(p, ["products", i], file) for i, p in enumerate(products)},
        exact=True,
        sources=_sources(doc.get("sources", []), file),
    )


def _product_names(products: list[dict[str, Any]], file: _File) -> dict[str, str]:
    for i, p in enumerate(products):  # (the schema checks a given slug; a made one can be empty)
        if not p.setdefault("slug", arena_slugify(p["name"])):
            raise file.at(["products", i, "name"], "has no letters or digits to make a slug of")
    file.unique(products, "name", "products")
    file.unique(products, "slug", "products")
    return {p["slug"]: p["name"] for p in products}


def _stories(
    stories: list[dict[str, Any]], groups: dict[str, set[str]], labels: dict, file: _File
) -> dict[int, dict[str, Any]]:
    file.unique(stories, "key", "stories")
    file.unique(stories, "text", "stories")
    for i, s in enumerate(stories):
        if s["category"] not in groups:
            raise file.at(["stories", i, "category"], f"{s['category']!r} is not a category")
        group = s.get("group")
        if group is not None and group not in groups[s["category"]]:
            raise file.at(["stories", i, "group"], f"{group!r} is not a group of {s['category']!r}")
        if s["persona"] not in labels:
            raise file.at(["stories", i, "persona"], f"{s['persona']!r} is not a persona")
    return {s["key"]: s for s in stories}


def _cells(
    cells: list[dict[str, Any]], story_by_key: dict, by_slug: dict[str, str], file: _File
) -> dict[tuple[int, str], CellDetail]:
    details: dict[tuple[int, str], CellDetail] = {}
    for i, c in enumerate(cells):
        where: list[str | int] = ["cells", i]
        if c["story"] not in story_by_key:
            raise file.at([*where, "story"], f"no story has the key {c['story']}")
        if c["product"] not in by_slug:
            raise file.at([*where, "product"], f"{c['product']!r} is not a product's slug")
        pair = (c["story"], c["product"])
        if pair in details:
            raise file.at(where, "a second cell for the same story and product")
        value = CellValue(c["verdict"], c.get("proof"), c.get("quality"))
        for field, message in value.errors().items():
            raise file.at([*where, field], message)
        evidence = tuple(
            Quote(
                e["source"],
                e["quote"],
                file.uri(e.get("url"), [*where, "evidence", j, "url"]),
                file.date(e.get("checked_on"), [*where, "evidence", j, "checked_on"]),
            )
            for j, e in enumerate(c.get("evidence", []))
        )
        rationale = c.get("rationale")
        as_of = file.date(c.get("evidence_as_of"), [*where, "evidence_as_of"])
        details[pair] = CellDetail(
            by_slug[c["product"]], value, rationale or "", evidence, 0, rationale is not None, as_of
        )
    for key, slug in itertools.product(story_by_key, by_slug):
        if (key, slug) not in details:
            said = f"no cell for the story {key} and the product {slug!r}: every product is judged"
            raise file.at(["cells"], f"{said} on every story")
    return details


def _product(p: dict[str, Any], where: list[str | int], file: _File) -> dict[str, Any]:
    """A product's values as the file states them (a fact left out or null: stored blank)."""
    if problem := licence_problem(p.get("licence") or ""):
        raise file.at([*where, "licence"], problem)
    values = {k: p.get(k) for k in ("slug", "stars", "stars_growth", "npm_weekly", "pypi_weekly")}
    for key in ("tier", "licence", "hosting", "pricing", "latest_version"):
        values[key] = p.get(key) or ""
    for key in _PRODUCT_CHECKED:
        check = file.date if key.endswith(("_of", "_release")) else file.uri
        values[key] = check(p.get(key), [*where, key])
    return values | {"languages": list(p.get("languages", []))}


def _sources(sources: list[dict[str, Any]], file: _File) -> tuple[dict[str, Any], ...]:
    file.unique(sources, "key", "sources")
    return tuple(
        {
            "key": s["key"],
            "title": s.get("title") or "",
            "url": file.uri(s.get("url"), ["sources", i, "url"]),
            "accessed": file.date(s.get("accessed"), ["sources", i, "accessed"]),
        }
        for i, s in enumerate(sources)
    )
