from __future__ import annotations

from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"

    def ready(self) -> None:
        from arena.signals import pages_changed
        from ops import purge

        pages_changed.connect(purge.pages_changed, dispatch_uid="ops-purge")
