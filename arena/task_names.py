"""The Celery tasks' names: registered by the tasks, sent by name (the recompute must not import
the tasks) and run by the beat schedule; a queued task keeps its name across deploys."""

REFRESH_TASK = "arena.tasks.arena_refresh_scores"
# its soft time limit, seconds: a refresh sent longer ago than its countdown plus this is over or lost
REFRESH_SOFT_LIMIT = 120
SWEEP_TASK = "arena.tasks.arena_refresh_stale"
PURGE_TASK = (
    "arena.tasks.http_cache_purge"  # (registered by ops.tasks, under the name it was queued by)
)
