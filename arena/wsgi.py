"""``gunicorn arena.wsgi``, the published command, serves the project's WSGI application."""

from config.wsgi import application

__all__ = ["application"]
