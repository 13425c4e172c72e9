"""The names of the Celery tasks, in one place: ``arena.tasks`` registers its tasks under them, the
recompute layer sends by them (it must not import the tasks it sends), and the beat schedule in
the settings runs the sweep by name."""

REFRESH_TASK = "arena.tasks.arena_refresh_scores"
SWEEP_TASK = "arena.tasks.arena_refresh_stale"
PURGE_TASK = "arena.tasks.http_cache_purge"
