"""Reading page dumps from files: their lines, which page is the overview, and the whole arena."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.importer.compare import parse_compare
from arena.importer.cursor import PageError
from arena.importer.limits import LimitError, read_bytes
from arena.importer.merge import merge_pages
from arena.importer.overview import is_overview, parse_overview
from arena.importer.records import ArenaRecord, ComparePage, OverviewPage
from arena.text import clean_text


def read_lines(path: str | Path) -> list[str]:
    """The file's lines (split at \\n only, so line numbers are what an editor shows), each cleaned
    by ``arena.text.clean_text``: a CRLF line end, control characters and a byte order mark go."""
    try:
        raw = read_bytes(str(path))
    except LimitError as exc:
        raise PageError(str(path), 0, str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + len(raw) - len(exc.object)  # the decoder's input lacks a byte order mark
        line = raw.count(b"\n", 0, at) + 1
        raise PageError(str(path), line, f"not UTF-8 text: {exc.reason} (byte {at})") from None
    return [clean_text(ln).replace("\n", "") for ln in text.split("\n")]


def parse_files(paths: Sequence[str | Path]) -> tuple[OverviewPage, list[ComparePage]]:
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


def read_arena(paths: Sequence[str | Path]) -> ArenaRecord:
    """The arena the page dumps at ``paths`` publish, every page checked; else a ``PageError``."""
    overview, compares = parse_files(paths)
    return merge_pages(overview, compares)
