from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"

    def ready(self) -> None:
        from arena import recompute
        from core import signals

        signals.content_changed.connect(
            recompute.arena_content_changed, dispatch_uid="arena-content"
        )
        signals.scores_changed.connect(recompute.arena_mark_stale, dispatch_uid="arena-scores")
