"""The caches: a Redis cache that degrades to cache misses instead of error pages when Redis is
down, and a memory cache bounded in bytes (the page cache without Redis).

Redis holds only what the site can do without (throttle counters, rendered pages and the like): a
broken Redis must never take the site down.
While Redis fails, every method answers exactly what its caller would get on a miss (``get`` returns
the caller's ``default``, ``get_many`` ``{}``, ``add``/``touch``/``delete``/``has_key`` ``False``,
``set_many`` the keys it could not store, ``incr``/``decr`` raise ``ValueError`` as for a missing key),
so every caller's miss path runs unchanged (``get_or_set`` returns its default, DRF's throttles see an
empty history).

It fails fast: short socket timeouts (settings), and after a failure the cache does not touch Redis for
``outage_backoff`` seconds (``OPTIONS["outage_backoff"]``, default 2), so a request that uses the cache
several times waits for at most one timeout, and the log gets one warning per outage, not one per call.
"""

from __future__ import annotations

import logging
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

# Errors of an unreachable or unhealthy Redis (connection refused/reset, timeouts, protocol errors,
# "OOM command not allowed"...). Anything else (a value that does not pickle, a bad key) is a bug
# of the caller and propagates.
OUTAGE_ERRORS = (RedisError, OSError)

# A cache timeout: seconds, None for no expiry, or DEFAULT_TIMEOUT for the cache's own.
Timeout = float | None


class ResilientRedisCache(RedisCache):
    """Django's Redis cache, answering a miss instead of raising while Redis fails."""

    outage_backoff = 2.0

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        self.outage_backoff = float(options.pop("outage_backoff", self.outage_backoff))
        super().__init__(server, {**params, "OPTIONS": options})
        self._down_until = 0.0  # monotonic time before which Redis is not tried again
        self._down = False

    # -- outage bookkeeping
    @property
    def is_down(self) -> bool:
        """True while the last attempt failed and the back-off has not run out."""
        return time.monotonic() < self._down_until

    def _failed(self, name: str, exc: Exception) -> None:
        self._down_until = time.monotonic() + self.outage_backoff
        if not self._down:
            self._down = True
            log.warning(
                "Redis cache unavailable (%s failed: %s: %s); serving cache misses",
                name,
                type(exc).__name__,
                exc,
            )

    def _recovered(self) -> None:
        if self._down:
            self._down = False
            log.warning("Redis cache is back")

    def _call[T](self, name: str, miss: Callable[[], T], *args: Any, **kwargs: Any) -> T:
        """``super().name(*args, **kwargs)``, or ``miss()`` while Redis is failing."""
        if self.is_down:
            return miss()
        try:
            result: T = getattr(super(), name)(*args, **kwargs)
        except OUTAGE_ERRORS as exc:
            self._failed(name, exc)
            return miss()
        self._recovered()
        return result

    # -- the cache API (BaseCache's get_or_set, decr, incr_version, the a* variants and so on are
    # built on these)
    def get(self, key: Any, default: Any | None = None, version: int | None = None) -> Any:
        return self._call("get", lambda: default, key, default, version=version)

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        return self._call("get_many", dict, keys, version=version)

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._call("has_key", lambda: False, key, version=version)

    def add(
        self, key: Any, value: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        return self._call("add", lambda: False, key, value, timeout, version=version)

    def set(
        self, key: Any, value: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        return self._call("set", lambda: None, key, value, timeout, version=version)

    def set_many(
        self, data: dict[Any, Any], timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list[Any]:
        return self._call("set_many", lambda: list(data), data, timeout, version=version)

    def touch(
        self, key: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        return self._call("touch", lambda: False, key, timeout, version=version)

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._call("delete", lambda: False, key, version=version)

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        return self._call("delete_many", lambda: None, keys, version=version)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        def missing() -> int:
            raise ValueError(f"Key '{key}' not found.")

        return self._call("incr", missing, key, delta, version=version)

    def clear(self) -> bool:  # type: ignore[override]  # Django's answers a bool; stubs say None
        return self._call("clear", lambda: False)

    # -- for /readyz
    def ping(self) -> bool:
        """PING the server now (ignoring the back-off); raises on failure."""
        # (a read that raises while Redis fails: the back-off and its miss are bypassed)
        super().has_key("readyz")
        self._down_until = 0.0
        self._recovered()
        return True


class BoundedLocMemCache(BaseCache):
    """A process's memory cache bounded in entries (``OPTIONS["MAX_ENTRIES"]``, default 300) and
    in bytes: the pickled values it holds stay within ``OPTIONS["max_bytes"]`` (default 64 MiB),
    the least recently used going first; a value larger than the whole budget is not kept.
    Entries are shared by every instance of one name (``LOCATION``), as Django's ``LocMemCache``
    shares them, and each process has its own."""

    max_bytes = 64 * 1024 * 1024

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        self.max_bytes = int(options.pop("max_bytes", self.max_bytes))
        self.max_entries = int(options.get("MAX_ENTRIES", 300))
        super().__init__({**params, "OPTIONS": options})
        self.store = _stores.setdefault(name, _Store())

    @property
    def held_bytes(self) -> int:
        return self.store.held

    def keep(self, key: str, value: Any, timeout: Timeout) -> None:
        if (self.default_timeout if timeout is DEFAULT_TIMEOUT else timeout) == 0:
            # Django's "do not cache": kept, it would only hold bytes until looked up
            self.store.drop(key)
            return
        pickled = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        expires = self.get_backend_timeout(timeout)
        self.store.put(
            key, pickled, expires, max_bytes=self.max_bytes, max_entries=self.max_entries
        )

    def get(self, key: Any, default: Any | None = None, version: int | None = None) -> Any:
        key = self.make_and_validate_key(key, version=version)
        with self.store.lock:
            value = self.store.live(key)
        return default if value is None else pickle.loads(value)

    def set(
        self, key: Any, value: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        key = self.make_and_validate_key(key, version=version)
        with self.store.lock:
            self.keep(key, value, timeout)

    def add(
        self, key: Any, value: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        key = self.make_and_validate_key(key, version=version)
        with self.store.lock:
            if self.store.live(key) is not None:
                return False
            self.keep(key, value, timeout)
            return True

    def touch(
        self, key: Any, timeout: Timeout = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        key = self.make_and_validate_key(key, version=version)
        with self.store.lock:
            value = self.store.live(key)
            if value is None:
                return False
            self.store.entries[key] = (value, self.get_backend_timeout(timeout))
            return True

    def has_key(self, key: Any, version: int | None = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        with self.store.lock:
            return self.store.live(key) is not None

    def delete(self, key: Any, version: int | None = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        with self.store.lock:
            return self.store.drop(key)

    def clear(self) -> None:
        with self.store.lock:
            self.store.entries.clear()
            self.store.held = 0


class _Store:
    """One named cache's entries (pickled value and expiry time, least recently used first) and
    the bytes they hold; its methods run under its ``lock``."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, tuple[bytes, float | None]] = OrderedDict()
        self.held = 0
        self.lock = threading.Lock()

    def live(self, key: str) -> bytes | None:
        """The value of ``key``, made the most recently used; None when absent or expired."""
        found = self.entries.get(key)
        if found is None:
            return None
        value, expires = found
        if expires is not None and expires <= time.time():
            self.drop(key)
            return None
        self.entries.move_to_end(key)
        return value

    def drop(self, key: str) -> bool:
        found = self.entries.pop(key, None)
        if found is not None:
            self.held -= len(found[0])
        return found is not None

    def put(
        self, key: str, value: bytes, expires: float | None, *, max_bytes: int, max_entries: int
    ) -> None:
        self.drop(key)
        if len(value) > max_bytes:
            return
        self.entries[key] = (value, expires)
        self.held += len(value)
        while self.entries and (self.held > max_bytes or len(self.entries) > max_entries):
            _, (dropped, _) = self.entries.popitem(last=False)  # the least recently used
            self.held -= len(dropped)


_stores: dict[str, _Store] = {}
