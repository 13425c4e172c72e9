"""The Celery tasks' names: registered by the tasks, sent by name (the recompute must not import
the tasks) and run by the beat schedule; a queued task keeps its name across deploys."""

REFRESH_TASK = "arena.tasks.arena_refresh_scores"
REFRESH_SOFT_LIMIT = 120  # seconds: a refresh older than its countdown plus this is over or lost
SWEEP_TASK = "arena.tasks.arena_refresh_stale"
PURGE_TASK = (
    "arena.tasks.http_cache_purge"  # (registered by ops.tasks, under the name it was queued by)
)
