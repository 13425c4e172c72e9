"""A page's lines and the line being read, so that every error names file and line."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from arena.imports.limits import LimitError, read_bytes
from stories.values import CellValueError


class PageError(ValueError):
    """A problem in a page dump, located by file and line."""

    def __init__(self, path: str, line: int, reason: str):
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}:{line}: {reason}")


def read_text(path: str) -> str:
    """A file's text: UTF-8 (a byte order mark dropped), at most ``ARENA_IMPORT_MAX_BYTES``."""
    try:
        raw = read_bytes(path)
    except OSError as exc:
        raise PageError(path, 0, f"cannot read file: {exc}") from None
    except LimitError as exc:
        raise PageError(path, 0, str(exc)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + len(raw) - len(exc.object)  # the decoder's input lacks a byte order mark
        line = raw.count(b"\n", 0, at) + 1
        raise PageError(path, line, f"not UTF-8 text: {exc.reason} (byte {at})") from None


class Cursor:
    """A page's lines, read one at a time. ``lineno`` is the line last taken, numbered as an editor
    shows it; an error is about that line (the last line of the page once the page has ended)."""

    def __init__(self, path: str, lines: Sequence[str], lineno: int = 0):
        self.path = path
        self.lines = lines
        self.lineno = lineno

    @property
    def line(self) -> str:
        """The line being read."""
        return self.lines[self.lineno - 1]

    @property
    def done(self) -> bool:
        return self.lineno >= len(self.lines)

    def peek(self, ahead: int = 0) -> str | None:
        """The next line (``ahead`` lines further on), not taken; None past the end."""
        index = self.lineno + ahead
        return self.lines[index] if index < len(self.lines) else None

    def take(self, reason: str = "the page ends too early") -> str:
        """The next line, which becomes the line being read; ``reason`` when there is none."""
        if self.done:
            raise self.error(reason)
        self.lineno += 1
        return self.lines[self.lineno - 1]

    def skip_blank(self) -> None:
        while not self.done and not self.lines[self.lineno].strip():
            self.lineno += 1

    def skip_until(self, found: Callable[[str], bool]) -> bool:
        """Skip lines until the next one is ``found``; False when the page ends first."""
        while not self.done and not found(self.lines[self.lineno]):
            self.lineno += 1
        return not self.done

    def at(self, lineno: int) -> Cursor:
        """A cursor of the same page that has just read line ``lineno``."""
        return Cursor(self.path, self.lines, lineno)

    def error(self, reason: str) -> PageError:
        """A ``PageError`` for the line being read."""
        return self.error_at(self.lineno, reason)

    def error_at(self, lineno: int, reason: str) -> PageError:
        return PageError(self.path, max(1, min(lineno, len(self.lines))), reason)

    @contextmanager
    def checks(self) -> Iterator[None]:
        """A refusal by the cell rules or the field limits as a ``PageError`` of the line read."""
        try:
            yield
        except (CellValueError, LimitError) as exc:
            raise self.error(str(exc)) from None
