"""Loading the settings loads the Celery app, so every process that runs Django sends tasks through it."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
