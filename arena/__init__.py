"""The arena app: an arena's models, its import, its scoring and the services that write it.

The Celery app is the project's (``config.celery``); ``arena.celery`` only points the published
``celery -A arena`` command at it, so importing a module of this package (the pure ``arena.scoring``
for one) does not load Celery.
"""
