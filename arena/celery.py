"""``celery -A arena worker`` and ``celery -A arena beat``, the published commands, find the
project's Celery app here."""

from config.celery import app

__all__ = ["app"]
