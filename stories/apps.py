from __future__ import annotations

from django.apps import AppConfig


class StoriesConfig(AppConfig):
    name = "stories"

    def ready(self) -> None:
        from core import signals
        from stories import services

        signals.placed.connect(services.cells_fill, dispatch_uid="stories-cells")
