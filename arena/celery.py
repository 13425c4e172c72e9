"""Where ``celery -A arena worker`` and ``celery -A arena beat`` find the project's Celery app."""

from config.celery import app

__all__ = ["app"]
