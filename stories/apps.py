from __future__ import annotations

from django.apps import AppConfig


class StoriesConfig(AppConfig):
    name = "stories"

    def ready(self) -> None:
        from core import signals
        from stories import services

        # a story or product placed on its arena gets a cell for every pair it makes
        signals.placed.connect(services.cells_fill, dispatch_uid="stories-cells")
