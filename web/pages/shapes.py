"""What web/pages reads of the things it is given: a model row (``Cell``, ``Product``), a
selector's line (``arena.selectors.cells.CellLine``) or, in the tests, a stand-in with those fields.
Read-only, so that frozen dataclasses and models fit alike."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Protocol, cast


class Named(Protocol):
    @property
    def name(self) -> str: ...


class Sluggable(Named, Protocol):
    """A product, an arena, a category: a name and a slug."""

    @property
    def slug(self) -> str: ...


class Judged(Protocol):
    """A judgement's three fields (``stories.values.CellValue`` writes them)."""

    @property
    def verdict(self) -> str: ...
    @property
    def proof(self) -> str | None: ...
    @property
    def quality(self) -> int | None: ...


class Quote(Protocol):
    """One evidence quote (``arena.selectors.head_to_head.Quote``, ``stories.models.Evidence``)."""

    @property
    def source(self) -> str: ...
    @property
    def quote(self) -> str: ...


class Quotes(Protocol):
    def all(self) -> Iterable[Quote]: ...


class CardCell(Judged, Protocol):
    """A cell as a card shows it: its judgement, product, rationale and evidence."""

    @property
    def pk(self) -> int: ...
    @property
    def product(self) -> Named: ...
    @property
    def rationale(self) -> str: ...
    @property
    def detail_published(self) -> bool: ...
    @property
    def evidence(self) -> Quotes: ...
    @property
    def rationale_predates(self) -> datetime | None: ...
    @property
    def rationale_rewritten_at(self) -> datetime | None: ...


class Dated(Protocol):
    """A cell with the day of its newest evidence (``stories/freshness.py`` judges its age)."""

    @property
    def verdict(self) -> str: ...
    @property
    def evidence_as_of(self) -> date | None: ...


def slug_of(thing: object) -> str:
    """The slug of a thing the selectors type loosely (a product, or a row's product)."""
    return cast(Sluggable, thing).slug


def persona_name(persona: object) -> str:
    """A persona's display name, ``backend developer`` (its label), as every page names it; its
    slug only when it has no label."""
    return str(getattr(persona, "label", "") or cast(Sluggable, persona).slug)
