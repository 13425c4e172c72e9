"""The arena file format (docs/arena-format.md): deterministic bytes, one record per line, UTF-8."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

FORMAT = "arena-site/arena"
VERSION = 1
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / f"arena-v{VERSION}.schema.json"

# The document's top-level keys, in order: two scalars, the arena (one object), then lists.
SECTIONS: tuple[str, ...] = ("format", "version", "arena", "categories", "personas", "products")
SECTIONS += ("stories", "cells", "adjacent", "sources")
CHUNK_CHARS = 64 * 1024  # about this many characters per chunk of a streamed export


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def document_lines(document: Mapping[str, Any]) -> Iterator[str]:
    yield "{\n"
    last = len(SECTIONS) - 1
    for i, key in enumerate(SECTIONS):
        end = "\n" if i == last else ",\n"
        value = document[key]
        # a list, or an iterator (a large arena's cells, read as they are written)
        records = iter(value) if isinstance(value, list | Iterator) else None
        held = next(records, None) if records is not None else None
        if records is None or held is None:
            yield f"  {_compact(key)}: {_compact(value if records is None else [])}{end}"
            continue
        yield f"  {_compact(key)}: [\n"
        for record in records:
            yield f"    {_compact(held)},\n"
            held = record
        yield f"    {_compact(held)}\n  ]{end}"
    yield "}\n"


def chunked(lines: Iterable[str], size: int = CHUNK_CHARS) -> Iterator[bytes]:
    """Lines of text as UTF-8 bytes in chunks of about ``size`` characters (for streaming)."""
    buffer: list[str] = []
    held = 0
    for line in lines:
        buffer.append(line)
        held += len(line)
        if held >= size:
            yield "".join(buffer).encode()
            buffer, held = [], 0
    if buffer:
        yield "".join(buffer).encode()


def document_text(document: Mapping[str, Any]) -> str:
    return "".join(document_lines(document))


def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: a key twice is refused, not silently overwritten."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(key)
        seen[key] = value
    return seen
