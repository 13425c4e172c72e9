from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"

    def ready(self) -> None:
        from arena import receivers
        from core import signals

        signals.content_changed.connect(receivers.content_changed, dispatch_uid="arena-content")
        signals.scores_changed.connect(receivers.scores_changed, dispatch_uid="arena-scores")
