"""Every rule of docs/scoring.md, as pure functions over plain data (no Django): callers write
``from arena import scoring`` and ``scoring.X``; the recompute stores what they return."""

from arena.scoring.certainty import (
    TOO_CLOSE,
    Call,
    Ranged,
    close_calls,
    pair_call,
    rank_ranges,
)
from arena.scoring.ranking import (
    FEW_STORIES,
    RANK_INTEGRITY,
    RANK_PA,
    RANK_VERIFIED,
    PersonaBest,
    Standing,
    best_by_persona,
    leaderboard,
    order_by,
    persona_decided_by,
    places,
    rivals,
    uphold_effect,
)
from arena.scoring.results import (
    WEIGHT_LEVELS,
    WEIGHT_NORMAL,
    Part,
    ProductResult,
    Weights,
    is_unverified,
    personal_score,
    product_results,
    range_groups,
    score_range,
)
from arena.scoring.rounds import (
    COMPARE_MAX,
    COMPARE_MIN,
    DRAWN,
    BestOf,
    CompareSummary,
    ManyRound,
    ManySummary,
    compare,
    compare_many,
    round_winner,
)
from arena.scoring.tally import (
    CellIn,
    Corrections,
    ProductKey,
    StoryIn,
    Tally,
    evidence_share,
    integrity,
    round_half_up,
    verdict_strength,
)
from stories.values import Direction
