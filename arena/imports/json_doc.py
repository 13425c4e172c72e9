"""An arena file as a JSON document: read, checked against its schema (``arena/schemas/``) and for
control characters, every problem named by JSON pointer and line."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from arena import dataformat
from arena.imports.reading import PageError, future_problem, read_text
from core.text import PRODUCT_SLUG_PATTERN, SLUG_PATTERN, slug_problem

# At most this many schema errors are listed (the first ones in document order).
MAX_ERRORS = 20
# What no text may hold: control characters (but tab and newline in the long texts) and lone
# surrogates (half a UTF-16 pair, which no UTF-8 text or database can store). XML, and so the Atom
# feeds, cannot carry controls; a line break in a name would break a mail header or a log line.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_ONE_LINE_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# The texts that may run over several lines (by their key); every other text is one line.
LONG_TEXTS = frozenset({"description", "rationale", "quote"})


class ArenaFileError(PageError):
    """``FILE: /json/pointer: reason``, or for text not JSON ``FILE: line L, column C: …``."""

    def __init__(self, path: str, reason: str, line: int = 0, column: int = 0):
        super().__init__(path, line, reason)
        where = f"line {line}, column {column}: " if line and column else ""
        where = where or (f"line {line}: " if line else "")
        self.args = (f"{path}: {where}{reason}",)


def pointer(path: Iterable[str | int]) -> str:
    """An RFC 6901 JSON pointer (``/cells/3/quality``); ``/`` for the whole document."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else "/"


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def line_of(text: str, where: Sequence[str | int]) -> int | None:
    """The line of ``text`` (a valid JSON document) where the value at ``where`` starts."""
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


class FileErrors:
    def __init__(self, path: str, text: str = ""):
        self.path = path
        self.text = text

    def where(self, path: Sequence[str | int]) -> str:
        line = line_of(self.text, path) if self.text else None
        return pointer(path) + (f" (line {line})" if line else "")

    def at(self, where: Sequence[str | int], reason: str) -> ArenaFileError:
        return ArenaFileError(self.path, f"{self.where(where)}: {reason}")


def load_document(path: str) -> tuple[Any, str]:
    try:
        text = read_text(path)
    except PageError as exc:
        raise ArenaFileError(path, exc.reason, exc.line) from None
    if not text.strip():
        raise ArenaFileError(path, "file is empty")
    try:
        return json.loads(text, object_pairs_hook=dataformat.unique_object), text
    except json.JSONDecodeError as exc:
        raise ArenaFileError(path, f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except dataformat.DuplicateKey as exc:
        raise ArenaFileError(path, f"the key {exc.key!r} appears twice in one object") from None
    except RecursionError:
        raise ArenaFileError(path, "nested too deeply to be an arena file") from None


@functools.cache
def _validator() -> Draft202012Validator:
    schema = dataformat.schema()
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def schema_check(document: Any, errors: FileErrors) -> None:
    if isinstance(document, dict) and document.get("format") == dataformat.FORMAT:
        version = document.get("version")
        if isinstance(version, int) and version > dataformat.VERSION:
            raise errors.at(
                ["version"],
                f"format version {version} is newer than this site reads "
                f"({dataformat.VERSION}); export the arena again with this site's version",
            )
    found = sorted(
        _validator().iter_errors(document),
        key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, p) for p in e.absolute_path],
    )
    if found:
        lines = [f"{errors.where(e.absolute_path)}: {_message(e)}" for e in found[:MAX_ERRORS]]
        more = len(found) - MAX_ERRORS
        if more > 0:
            lines.append(f"... and {more} more")
        raise ArenaFileError(errors.path, f"\n{errors.path}: ".join(lines))


# A slug pattern's error says the rule (core.text) rather than quote the regular expression.
_SLUG_PATTERNS = {SLUG_PATTERN: False, PRODUCT_SLUG_PATTERN: True}


def _message(error: ValidationError) -> str:
    if error.validator == "maxLength" and isinstance(error.instance, str):
        # (the schema's own message quotes the value whole, and a cut quote hides the reason)
        return (
            f"{_short(repr(error.instance), 60)} is {len(error.instance)} characters long; "
            f"at most {error.validator_value} are allowed"
        )
    if error.validator == "pattern" and error.validator_value in _SLUG_PATTERNS:
        problem = slug_problem(error.instance, product=_SLUG_PATTERNS[error.validator_value])
        if problem:
            return _short(problem)
    return _short(error.message)


def _short(message: str, size: int = 300) -> str:
    """A message cut to ``size`` characters (the schema's messages quote the value whole)."""
    return message if len(message) <= size else message[: size - 1] + "…"


def texts_check(value: Any, where: list[str | int], errors: FileErrors) -> None:
    """No control character or lone surrogate in any text of the document, and no line break in
    a name, title or other one-line text (the schema cannot say it)."""
    if isinstance(value, str):
        key = next((step for step in reversed(where) if isinstance(step, str)), "")
        long = key in LONG_TEXTS
        m = (_CONTROL if long else _ONE_LINE_CONTROL).search(value)
        if m:
            code = ord(m.group())
            what = "a lone surrogate" if 0xD800 <= code <= 0xDFFF else "the control character"
            note = "" if long or m.group() not in "\t\n\r" else " (names and titles are one line)"
            raise errors.at(where, f"holds {what} U+{code:04X} at position {m.start()}{note}")
    elif isinstance(value, dict):
        for key, item in value.items():
            if _CONTROL.search(key):
                raise errors.at(where, f"has a key with a control character: {key!r}")
            texts_check(item, [*where, key], errors)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            texts_check(item, [*where, i], errors)


def date_at(value: str | None, where: list[str | int], errors: FileErrors) -> date | None:
    """A day the schema found well formed, refused when it is after today."""
    day = date.fromisoformat(value) if value is not None else None
    if problem := future_problem(day):
        raise errors.at(where, problem)
    return day


def unique(
    items: Sequence[Any],
    key: str,
    section: str,
    errors: FileErrors,
    *,
    made: Callable[[Any], Any] | None = None,
) -> None:
    """No two ``items`` of ``section`` alike in ``key`` (compared as ``made`` makes them)."""
    seen: dict[Any, int] = {}
    for i, item in enumerate(items):
        value = made(item[key]) if made else item[key]
        if value in seen:
            raise errors.at(
                [section, i, key], f"{item[key]!r} is already used by /{section}/{seen[value]}"
            )
        seen[value] = i
