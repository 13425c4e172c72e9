from __future__ import annotations

from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
