"""The WSGI application; ``gunicorn arena.wsgi``, the published command, reaches it through
``arena/wsgi.py``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
