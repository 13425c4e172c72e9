"""The arena site's project package and arena app.

The Celery app lives in ``arena.celery`` (``celery -A arena`` finds it there); it is not imported
here, so importing any module of the package (the pure ``arena.scoring`` for one) does not load
Celery.
"""
