"""Choice enums in plain Python, in the shape Django's fields and forms read (``choices``,
``values``), so that rules which must not load Django (the scores) can use the same enums."""

from __future__ import annotations

from collections.abc import Iterable
from enum import EnumType, StrEnum
from typing import cast


class ChoicesType(EnumType):
    @property
    def choices(cls) -> list[tuple[str, str]]:
        """(value, label) pairs, for a field's or a form's ``choices``."""
        return [(m.value, m.label) for m in cast("Iterable[Choices]", cls)]

    @property
    def values(cls) -> list[str]:
        return [m.value for m in cast("Iterable[Choices]", cls)]


class Choices(StrEnum, metaclass=ChoicesType):
    """A string enum whose members' labels are their values unless a subclass says otherwise."""

    @property
    def label(self) -> str:
        return self.value
