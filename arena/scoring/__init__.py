"""Every rule of docs/scoring.md, as pure functions over plain data (no ORM in here).

The recompute service feeds these functions plain records loaded from the database and stores what
they return; the pages and the API only read what was stored. Head-to-head rounds are decided here too.

This is the package's public face: callers write ``from arena import scoring`` and ``scoring.X``.
Its modules, one job each: ``verdicts`` (their order), ``corrections`` (which way an upheld
correction went, and a cell's net), ``tally`` (a product's cells added up: coverage, confidence, integrity),
``weights`` (a visitor's weights, the parts they weigh and the scores' ranges), ``results`` (a
product's result, the one definition of its scores, and how it is stored), ``ranking`` (rank keys,
order, places, rivals), ``calls`` (who leads), ``certainty`` (rank ranges, close calls and
what would settle them), ``preview`` (what upholding one flag would do), ``personas`` (best by user
type), ``rounds`` (head-to-head) and ``many`` (several products side by side).
"""

from arena.scoring.calls import TOO_CLOSE, Call, Ranged, pair_call
from arena.scoring.certainty import Side, close_calls, ranged, rank_ranges, settle_set
from arena.scoring.corrections import Corrections
from arena.scoring.many import (
    COMPARE_MAX,
    COMPARE_MIN,
    BestOf,
    ManyRound,
    ManyStanding,
    ManySummary,
    compare_many,
    tally_many_rounds,
)
from arena.scoring.personas import FEW_STORIES, PersonaBest, best_by_persona, persona_decided_by
from arena.scoring.preview import Standing, uphold_effect
from arena.scoring.ranking import (
    RANK_CATEGORY,
    RANK_INTEGRITY,
    RANK_PA,
    RANK_PERSONA,
    RANK_VERIFIED,
    leaderboard,
    order_by,
    order_by_weights,
    places,
    rank_key,
    rank_key_split,
    rivals,
)
from arena.scoring.results import ProductResult, RankedResult, product_result, product_results
from arena.scoring.rounds import DRAWN, CompareSummary, Round, compare, round_winner, tally_rounds
from arena.scoring.tally import (
    CellIn,
    ProductKey,
    StoryIn,
    Tally,
    confidence,
    coverage,
    evidence_share,
    has_evidence,
    integrity,
    is_verified,
    round_half_up,
    verdict_strength,
)
from arena.scoring.weights import (
    PUBLISHED,
    UNVERIFIED_PROOF,
    WEIGHT_LEVELS,
    WEIGHT_NORMAL,
    Part,
    Weights,
    is_unverified,
    personal_score,
    quality_bounds,
    range_groups,
    score_range,
)
from stories.values import Direction, correction_direction
