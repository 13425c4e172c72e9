"""The order of verdicts, the one every rule that compares two judgements reads: a head-to-head
round, a story's strength, the direction of a correction."""

from __future__ import annotations

from stories.values import Verdict

# head-to-head: a better verdict wins the round; n/a has no place in the order
VERDICT_ORDER = {Verdict.FULL: 3, Verdict.PARTIAL: 2, Verdict.DISPUTED: 1, Verdict.NONE: 0}
