"""Which must-have choices the page cache keeps (``web.params.MUST``, ``NEED``): the canonical
spelling of a small choice, so one choice is one key and the keys kept are bounded."""

from __future__ import annotations

from arena.scoring.musthave import NEEDS

# At most this many story must-haves (more is a 400 saying so).
MUST_MAX = 10
# The largest choice of stories whose page is kept in the page cache: with the facts' 8 subsets,
# (C(n,0) + C(n,1) + C(n,2)) × 8 pages per arena (about 6,900 for 41 stories); larger choices are
# rendered for each request.
MUST_KEPT = 2


def _ids_canonical(value: str) -> list[int] | None:
    """The ids of a canonical ``must`` value (ascending, each once, digits only), else None."""
    items = value.split(",")
    if not all(i.isascii() and i.isdigit() and not i.startswith("0") for i in items):
        return None
    ids = [int(i) for i in items]
    return ids if ids == sorted(set(ids)) else None


def must_kept(value: str) -> bool:
    ids = _ids_canonical(value)
    return ids is not None and len(ids) <= MUST_KEPT


def needs_kept(value: str) -> bool:
    items = value.split(",")
    return items == [n for n in NEEDS if n in items]
