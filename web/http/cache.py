"""The caches: a Redis cache that answers misses instead of errors while Redis is down (it holds only
what the site can do without), and a memory cache bounded in bytes (the page cache without Redis)."""

from __future__ import annotations

import logging
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

# An unreachable or unhealthy Redis; any other error (a value that does not pickle) is the caller's bug.
OUTAGE_ERRORS = (RedisError, OSError)
Timeout = float | None


def _or_miss(name: str, miss: Any) -> Any:
    """Django's Redis cache's ``name``, answering ``miss`` (or ``miss(*args)``) while Redis fails."""

    def method(self: ResilientRedisCache, *args: Any, **kwargs: Any) -> Any:
        answer = (lambda: miss(*args, **kwargs)) if callable(miss) else (lambda: miss)
        return self._call(name, answer, *args, **kwargs)

    return method


def _missing(key: Any, *args: Any, **kwargs: Any) -> int:
    raise ValueError(f"Key '{key}' not found.")


class ResilientRedisCache(RedisCache):
    """Django's Redis cache; while Redis fails every call answers what a miss would (``incr``
    raises ``ValueError`` as for a missing key), and Redis is not tried again for
    ``OPTIONS["outage_backoff"]`` seconds, so a request waits for at most one timeout."""

    outage_backoff = 2.0

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        self.outage_backoff = float(options.pop("outage_backoff", self.outage_backoff))
        super().__init__(server, {**params, "OPTIONS": options})
        self.down_until = 0.0  # monotonic time before which Redis is not tried again
        self.down = False

    @property
    def is_down(self) -> bool:
        return time.monotonic() < self.down_until

    def _call[T](self, name: str, miss: Callable[[], T], *args: Any, **kwargs: Any) -> T:
        """``super().name(*args, **kwargs)``, or ``miss()`` while Redis is failing."""
        if self.is_down:
            return miss()
        try:
            result: T = getattr(super(), name)(*args, **kwargs)
        except OUTAGE_ERRORS as exc:
            self.down_until = time.monotonic() + self.outage_backoff
            if not self.down:  # one warning per outage, not one per call
                self.down = True
                log.warning(
                    "Redis cache unavailable (%s failed: %s: %s); serving cache misses",
                    *(name, type(exc).__name__, exc),
                )
            return miss()
        if self.down:
            self.down = False
            log.warning("Redis cache is back")
        return result

    # What each call answers while Redis fails: what a miss would (BaseCache's get_or_set, decr,
    # the a* variants and the rest are built on these).
    get = _or_miss("get", lambda key, default=None, version=None: default)
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


class LRU:
    """Values with their size in bytes and expiry, least recently used first, kept within
    ``max_bytes`` and ``max_entries``; a value larger than the whole budget is not kept."""

    def __init__(self, max_bytes: int, max_entries: int | None = None) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self.entries: OrderedDict[str, tuple[Any, int, float | None]] = OrderedDict()
        self.size = 0
        self.lock = threading.RLock()  # gthread workers serve several requests at once

    def get(self, key: str) -> Any | None:
        """The value, made the most recently used; None when absent or expired."""
        with self.lock:
            found = self.entries.get(key)
            if found is None:
                return None
            if found[2] is not None and found[2] <= time.time():
                self.drop(key)
                return None
            self.entries.move_to_end(key)
            return found[0]

    def put(self, key: str, value: Any, size: int, expires: float | None = None) -> None:
        with self.lock:
            self.drop(key)
            if size > self.max_bytes:
                return
            self.entries[key] = (value, size, expires)
            self.size += size
            while self.size > self.max_bytes or len(self.entries) > (self.max_entries or 1 << 62):
                _, (_, dropped, _) = self.entries.popitem(last=False)
                self.size -= dropped

    def drop(self, key: str) -> bool:
        with self.lock:
            found = self.entries.pop(key, None)
            if found is not None:
                self.size -= found[1]
            return found is not None

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.size = 0


class BoundedLocMemCache(BaseCache):
    """A process's memory cache bounded in entries (``OPTIONS["MAX_ENTRIES"]``, default 300) and in
    pickled bytes (``OPTIONS["max_bytes"]``, default 64 MiB); one store per name, as LocMemCache."""

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        max_bytes = int(options.pop("max_bytes", 64 * 1024 * 1024))
        super().__init__({**params, "OPTIONS": options})
        self.store = _stores.setdefault(name, LRU(max_bytes, int(options.get("MAX_ENTRIES", 300))))

    @property
    def held_bytes(self) -> int:
        return self.store.size

    def get(self, key: Any, default: Any | None = None, version: int | None = None) -> Any:
        value = self.store.get(self.make_and_validate_key(key, version=version))
        return default if value is None else pickle.loads(value)

    def set(
        self, key: Any, value: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        key = self.make_and_validate_key(key, version=version)
        if (self.default_timeout if timeout is DEFAULT_TIMEOUT else timeout) == 0:
            self.store.drop(key)  # Django's "do not cache"
            return
        pickled = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        self.store.put(key, pickled, len(pickled), self.get_backend_timeout(timeout))

    def add(
        self, key: Any, value: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        with self.store.lock:
            if self.store.get(self.make_and_validate_key(key, version=version)) is not None:
                return False
            self.set(key, value, timeout, version)
            return True

    def touch(
        self, key: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        key = self.make_and_validate_key(key, version=version)
        with self.store.lock:
            value = self.store.get(key)
            if value is not None:
                self.store.put(key, value, len(value), self.get_backend_timeout(timeout))
            return value is not None

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self.store.drop(self.make_and_validate_key(key, version=version))

    def clear(self) -> None:
        self.store.clear()


_stores: dict[str, LRU] = {}
