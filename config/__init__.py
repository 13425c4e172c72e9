"""The project's wiring: settings, the root URLs, the WSGI and ASGI entry points and the Celery app.

Loading the settings loads this package, which loads the Celery app, so every process that runs
Django (web, worker, management command, tests) sends tasks through the configured app.
"""

from config.celery import app as celery_app

__all__ = ["celery_app"]
