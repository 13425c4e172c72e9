"""gunicorn's production defaults (gunicorn reads ./gunicorn.conf.py by itself when started from the
project root: ``gunicorn arena.wsgi``; command-line options override these).

Environment:
  BIND                   address to listen on (default ``0.0.0.0:$PORT``)
  PORT                   port when BIND is not set (default 8000)
  WEB_CONCURRENCY        worker processes (default 3)
  GUNICORN_THREADS       threads per worker (default 4, gthread; 1: the sync worker)
  GUNICORN_WORKER_CLASS  worker class (default ``sync`` for one thread, ``gthread`` for more)
  GUNICORN_KEEPALIVE     seconds an idle keep-alive connection stays open (gthread; default 5)
  GUNICORN_TIMEOUT       seconds before a silent worker is killed and replaced (default 30)
  GUNICORN_ACCESS_LOG    where to write the access log (``-`` for stdout; default: none)
"""

import os

bind = os.environ.get("BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
# gthread, 4 threads per worker: more threads than flag-submit slots (FLAG_CONCURRENCY, 2), so a
# flood of flags leaves threads free for the pages. `make bench` (a 20-client flag flood beside the
# arena page, 3 workers): arena p99 in the flood ~11 ms with 4 threads, ~40 with 2, ~70 with sync.
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS") or ("gthread" if threads > 1 else "sync")
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = timeout
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
errorlog = "-"
