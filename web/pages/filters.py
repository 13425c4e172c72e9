"""The matrix's filter form's verdict menu (the form itself is ``arena/detail.html``'s)."""

from __future__ import annotations

from stories.values import Verdict


def verdict_choices() -> list[tuple[str, str]]:
    """The verdict menu's (value, label) pairs, ``✓ full`` … ``n/a``."""
    return [(v.value, f"{v.symbol} {v.label}" if v.symbol else v.label) for v in Verdict]
