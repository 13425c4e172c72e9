"""Page reads: querysets and plain structures with their joins in place, a constant number of
queries whatever the arena's size; one module per page or read job. A read finds nothing →
``None`` (the views and the API turn that into their 404). Pages and the API read stored scores;
nothing is scored here except head-to-head rounds (``arena.scoring.compare``)."""

from arena.selectors.arenas import (
    arena_adjacent_list,
    arena_category_list,
    arena_get,
    arena_list,
    arena_persona_result_list,
    arena_product_list,
    arena_product_pair_get,
    arena_story_list,
)
from arena.selectors.cells import CellLine, CellPage, HeadToHeadLink, cell_page_get
from arena.selectors.compare import (
    COMPARE_MAX,
    COMPARE_MIN,
    ComparePick,
    ManyComparison,
    ManyRow,
    compare_many_get,
    compare_pick,
)
from arena.selectors.freshness import arena_stale_counts
from arena.selectors.head_to_head import (
    HEAD_TO_HEAD_INLINE,
    CompareRow,
    Comparison,
    head_to_head_get,
)
from arena.selectors.leaderboard import (
    RANK_PA,
    Leaderboard,
    RankOption,
    arena_leaderboard,
    arena_product_ranking,
    arena_score_list,
)
from arena.selectors.matrix import (
    MATRIX_COLLAPSE_ABOVE,
    MATRIX_COLUMNS,
    CategoryBlock,
    Matrix,
    MatrixFilters,
    MatrixRow,
    SubGroupBlock,
    arena_matrix,
    matrix_block_list,
    matrix_column_list,
)
from arena.selectors.products import ProductPage, StaleShare, product_get, product_page_get
from arena.selectors.settle import (
    ClosePair,
    PairSettle,
    QueueItem,
    VerifyQueue,
    pair_settle_get,
    verify_queue_get,
)
from arena.selectors.sources import arena_source_list, cited_source_map
from arena.selectors.stories import story_cell_list, story_cited_sources, story_get
from arena.selectors.weights import (
    PERSONA,
    WEIGHT_CRITICAL,
    WeightControl,
    WeightsAsked,
    WeightsRead,
    weights_read,
)

__all__ = [
    "ClosePair",
    "PairSettle",
    "QueueItem",
    "VerifyQueue",
    "pair_settle_get",
    "verify_queue_get",
    "CellLine",
    "COMPARE_MAX",
    "COMPARE_MIN",
    "ComparePick",
    "ManyComparison",
    "ManyRow",
    "compare_many_get",
    "compare_pick",
    "MATRIX_COLLAPSE_ABOVE",
    "MATRIX_COLUMNS",
    "RANK_PA",
    "CategoryBlock",
    "CellPage",
    "CompareRow",
    "Comparison",
    "HeadToHeadLink",
    "Leaderboard",
    "Matrix",
    "MatrixFilters",
    "MatrixRow",
    "ProductPage",
    "RankOption",
    "StaleShare",
    "SubGroupBlock",
    "PERSONA",
    "WEIGHT_CRITICAL",
    "WeightControl",
    "WeightsAsked",
    "WeightsRead",
    "arena_adjacent_list",
    "arena_category_list",
    "arena_get",
    "arena_leaderboard",
    "arena_list",
    "arena_matrix",
    "arena_persona_result_list",
    "arena_product_ranking",
    "arena_product_list",
    "arena_product_pair_get",
    "arena_score_list",
    "arena_stale_counts",
    "arena_story_list",
    "cell_page_get",
    "arena_source_list",
    "cited_source_map",
    "story_cited_sources",
    "head_to_head_get",
    "HEAD_TO_HEAD_INLINE",
    "matrix_block_list",
    "matrix_column_list",
    "product_get",
    "product_page_get",
    "story_cell_list",
    "story_get",
    "weights_read",
]
