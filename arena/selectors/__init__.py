"""Page reads: querysets and plain values with their joins in place, a constant number of queries
whatever the arena's size, one module per page or read job; nothing found → ``None``."""

from arena.scoring import RANK_PA
from arena.selectors.arenas import (
    arena_adjacent_list,
    arena_category_list,
    arena_get,
    arena_list,
    arena_persona_result_list,
    arena_product_list,
    arena_product_pair_get,
)
from arena.selectors.cells import (
    arena_source_list,
    cell_page_get,
    cited_sources,
    story_cell_list,
    story_get,
)
from arena.selectors.compare import COMPARE_MAX, COMPARE_MIN, compare_many_get, compare_pick
from arena.selectors.head_to_head import HEAD_TO_HEAD_INLINE, head_to_head_get
from arena.selectors.leaderboard import (
    Leaderboard,
    RankOption,
    arena_leaderboard,
    arena_product_ranking,
    arena_score_list,
    arena_stale_counts,
)
from arena.selectors.matrix import (
    MATRIX_COLLAPSE_ABOVE,
    MATRIX_COLUMNS,
    MatrixFilters,
    arena_matrix,
    matrix_block_list,
    matrix_column_list,
    product_get,
    product_page_get,
)
from arena.selectors.settle import ClosePair, QueueItem, pair_settle_get, verify_queue_get
from arena.selectors.weights import PERSONA, WEIGHT_CRITICAL
