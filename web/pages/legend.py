"""What the legend (arena page and methodology, ``arena/_legend.html``) and the key of proof marks
above the matrix list: the same for every page."""

from __future__ import annotations

from stories.values import Proof
from web.pages.badges import (
    PROOF_MARK_WORDS,
    PROOF_MARKS,
    legend_backings,
    legend_proofs,
    legend_verdicts,
)


def legend() -> dict[str, object]:
    """The legend's columns of marks and meanings (its column of numbers is the template's)."""
    return {"verdicts": legend_verdicts(), "proofs": legend_proofs(), "backings": legend_backings()}


def proof_levels() -> list[dict[str, str]]:
    """The key above the matrix: each proof level's mark (as the cells show it), its name and the
    word its letter comes from."""
    return [{"mark": PROOF_MARKS[p], "name": p.value, "word": PROOF_MARK_WORDS[p]} for p in Proof]
