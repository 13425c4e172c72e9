"""The arena app: an arena's models, import, scoring and writes. ``celery -A arena`` finds the
project's Celery app through ``arena.celery``, so importing this package does not load Celery."""
