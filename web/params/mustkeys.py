"""Which must-have choices the page cache keeps: small ones, canonically spelled."""

from __future__ import annotations

from arena.scoring.musthave import NEEDS

# At most this many story must-haves (more is a 400 saying so).
MUST_MAX = 10
# The largest choice of stories whose page the page cache keeps (a bounded number per arena).
MUST_KEPT = 2


def _ids_canonical(value: str) -> list[int] | None:
    """Ascending, each once, digits only; else None."""
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
