"""gunicorn's production defaults (gunicorn reads ./gunicorn.conf.py by itself when started from the
project root: ``gunicorn arena.wsgi``; command-line options override these).

Environment:
  BIND                   address to listen on (default ``127.0.0.1:$PORT`` when TRUSTED_PROXIES is
                         above 0, so that nobody reaches the app around the proxy; else
                         ``0.0.0.0:$PORT``, gunicorn being the front)
  PORT                   port when BIND is not set (default 8000)
  TRUSTED_PROXIES        read for the default BIND only (docs/settings.md)
  WEB_CONCURRENCY        worker processes (default 3)
  GUNICORN_THREADS       threads per worker (default 1: the sync worker; more: gthread)
  GUNICORN_WORKER_CLASS  worker class (default ``sync`` for one thread, ``gthread`` for more)
  GUNICORN_KEEPALIVE     seconds an idle keep-alive connection stays open (gthread; default 5)
  GUNICORN_TIMEOUT       seconds before a silent worker is killed and replaced (default 30)
  GUNICORN_ACCESS_LOG    where to write gunicorn's own access log (``-`` for stdout; default: none;
                         the site writes its own, logger ``arena.access``, docs/operations.md "Logs")
  PROMETHEUS_MULTIPROC_DIR  a folder for the metrics of every worker process (docs/operations.md "Metrics"):
                         /metrics adds them up; a worker that exits is marked dead here
"""

import os
from typing import Any

from config.env import env

_host = "127.0.0.1" if env("TRUSTED_PROXIES", 0) > 0 else "0.0.0.0"
bind = os.environ.get("BIND") or f"{_host}:{os.environ.get('PORT', '8000')}"
# gunicorn would take the scheme (X-Forwarded-Proto, -Ssl, -Protocol) and SCRIPT_NAME/PATH_INFO
# headers from any loopback peer, a client's passed on by a proxy included: it believes none, and
# the site reads the scheme from its trusted proxies only (web/http/middleware.py).
forwarded_allow_ips = ""
secure_scheme_headers: dict[str, str] = {}
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
# The sync worker by default. `make bench` (3 workers, a 20-client flag flood on PostgreSQL beside
# the arena page): sync held the flags' latency best; gthread left the page more room in some runs and
# far less in others, as keep-alive connections pile up on one process. Try GUNICORN_THREADS=4 where the
# pages matter more than the flags' latency, and measure.
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS") or ("gthread" if threads > 1 else "sync")
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = timeout
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
errorlog = "-"


def child_exit(server: Any, worker: Any) -> None:
    """A worker that exits (restarted, killed by the timeout) leaves its counters in the metrics
    folder, still added up; its live gauges go (prometheus_client's multiprocess mode)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
