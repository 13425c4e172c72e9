"""An arena's source list (``arena.models.Source``): what the ids its evidence cites refer to."""

from __future__ import annotations

from collections.abc import Iterable

from arena.models import Arena, Source
from core.text import source_ids


def arena_source_list(*, arena: Arena) -> list[Source]:
    """The arena's source list by id: one query."""
    return list(Source.objects.filter(arena=arena).order_by("key"))


def cited_source_map(*, arena_id: int, texts: Iterable[str]) -> dict[str, Source]:
    """The entries of the arena's source list for the ids ``texts`` cite (rationales, quote
    sources), by id; an id with no entry is missing. One query, even when nothing is cited: a
    page's count of queries does not depend on what its evidence cites."""
    keys = sorted({key for text in texts for key in source_ids(text)})
    # (an empty ``__in`` is answered without a query; no entry has an empty id)
    found = Source.objects.filter(arena_id=arena_id, key__in=keys or [""])
    return {s.key: s for s in found}
