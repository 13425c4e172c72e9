"""Django's Redis cache, answering misses instead of errors while Redis is down."""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

OUTAGE_ERRORS = (RedisError, OSError)  # Redis down; any other error is the caller's bug


def _or_miss(name: str, miss: Any) -> Any:
    def method(self: ResilientRedisCache, *args: Any, **kwargs: Any) -> Any:
        if not self.is_down:
            try:
                result = getattr(super(ResilientRedisCache, self), name)(*args, **kwargs)
            except OUTAGE_ERRORS as exc:
                self.down_until = time.monotonic() + self.outage_backoff
                if not self.down:  # one warning per outage, not one per call
                    self.down = True
                    log.warning(
                        "Redis cache unavailable (%s failed: %s: %s); serving cache misses",
                        *(name, type(exc).__name__, exc),
                    )
            else:
                if self.down:
                    self.down = False
                    log.warning("Redis cache is back")
                return result
        return miss(*args, **kwargs) if callable(miss) else miss

    return method


def _missing(key: Any, *args: Any, **kwargs: Any) -> int:
    raise ValueError(f"Key '{key}' not found.")


class ResilientRedisCache(RedisCache):
    """While Redis fails, calls answer as a miss, and it rests ``outage_backoff`` seconds."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        self.outage_backoff = float(options.pop("outage_backoff", 2.0))
        super().__init__(server, {**params, "OPTIONS": options})
        self.down_until = 0.0  # monotonic time before which Redis is not tried again
        self.down = False

    @property
    def is_down(self) -> bool:
        return time.monotonic() < self.down_until

    get = _or_miss("get", lambda key, default=None, version=None: default)  # (BaseCache's rest too)
    get_many = _or_miss("get_many", lambda *args, **kwargs: {})
    set_many = _or_miss("set_many", lambda data, *args, **kwargs: list(data))
    incr = _or_miss("incr", _missing)
    has_key = _or_miss("has_key", False)
    add = _or_miss("add", False)
    touch = _or_miss("touch", False)
    delete = _or_miss("delete", False)
    clear = _or_miss("clear", False)
    set = _or_miss("set", None)
    delete_many = _or_miss("delete_many", None)

    def ping(self) -> None:
        """For /readyz: a read now, past the back-off; raises while Redis fails."""
        super().has_key("readyz")
        self.down_until, self.down = 0.0, False
