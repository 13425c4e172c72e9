"""The ASGI application, for an ASGI server (the published command serves WSGI:
``gunicorn arena.wsgi``)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()
