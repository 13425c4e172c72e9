"""The WSGI application; ``gunicorn arena.wsgi``, the published command, reaches it through
``arena/wsgi.py``."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# What loading the project makes (some 150,000 objects: modules, classes, the URL patterns) lives
# as long as the process. Frozen, the collector no longer walks it on every full collection, which
# took about a tenth of an uncached arena page's CPU time. The URL patterns are loaded first (they
# import every view), not on the first request; gunicorn loads the application in each worker (no
# preload), so nothing is shared that a later write would copy.
get_resolver().url_patterns  # noqa: B018  (loaded for its imports)
gc.collect()
gc.freeze()
# A page's render makes a few thousand containers that live only while it is written. At the
# default threshold (700) the young generation is collected once or more per uncached page, each
# time walking what the render still holds (the page's rows and cells), then again as they age:
# about 3% of the page's time. At 10,000 most of it is garbage freed by reference counting before a
# collection comes: half the collector's time, and nothing freed later that matters (only cycles
# wait for it, which the page's render no longer makes: web.http.templates).
gc.set_threshold(10_000, 10, 10)
