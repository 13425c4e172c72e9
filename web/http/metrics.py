"""The requests' Prometheus metrics (figures read at scrape time: ``web.views.metrics``).
Multiprocess mode reads PROMETHEUS_MULTIPROC_DIR from the environment before import, never a setting."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

REQUESTS = Counter(
    "arena_http_requests",
    "HTTP requests answered, by view (URL name), method and status",
    ["view", "method", "status"],
)
DURATION = Histogram(
    "arena_http_request_duration_seconds",
    "Time from the request reaching Django to its response (a streamed body not included), by view",
    ["view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
PAGE_CACHE = Counter(
    "arena_page_cache_requests",
    "Public pages looked up in the page cache, by result (hit or miss)",
    ["result"],
)
UNMATCHED = "<unmatched>"  # the view label of a path no URL matches (bounded: one label for all)
# Task failures are counted in the broker's Redis (config/tasklog.py), a hash: task name -> count,
# so that every worker on every host adds to one figure; /metrics reads it
FAILURES_KEY = "arena:metrics:task_failures"
