"""The caches: a Redis cache that degrades to cache misses instead of error pages when Redis is
down, and a local-memory cache bounded in bytes (the page cache without Redis).

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
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
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
        client = self._cache.get_client(None, write=True)
        result = bool(client.ping())
        self._down_until = 0.0
        self._recovered()
        return result


if TYPE_CHECKING:
    from collections import OrderedDict
    from threading import Lock

    class _LocMemCache(LocMemCache):
        """What LocMemCache keeps and calls internally (django-stubs leaves it out)."""

        _cache: OrderedDict[str, bytes]  # pickled values, least recently used first
        _expire_info: dict[str, float | None]
        _lock: Lock

        def _set(self, key: str, value: bytes, timeout: Timeout = DEFAULT_TIMEOUT) -> None: ...
        def _delete(self, key: str) -> bool: ...
        def _cull(self) -> None: ...
else:
    _LocMemCache = LocMemCache


# Bytes held by each named local-memory cache (its entries are shared by every instance of one name,
# as Django's own are).
_held: dict[str, list[int]] = {}


class BoundedLocMemCache(_LocMemCache):
    """Django's local-memory cache, also bounded in bytes: the pickled values it holds stay within
    ``OPTIONS["max_bytes"]`` (default 64 MiB), the least recently used going first; a value larger
    than the whole budget is not kept. ``MAX_ENTRIES`` still applies."""

    max_bytes = 64 * 1024 * 1024

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS") or {})
        self.max_bytes = int(options.pop("max_bytes", self.max_bytes))
        super().__init__(name, {**params, "OPTIONS": options})
        self._held = _held.setdefault(name, [0])

    @property
    def held_bytes(self) -> int:
        return self._held[0]

    def _size(self, key: str) -> int:
        value = self._cache.get(key)
        return len(value) if value is not None else 0

    # (each of these runs under the cache's lock, from LocMemCache's public methods)
    def _set(self, key: str, value: bytes, timeout: Timeout = DEFAULT_TIMEOUT) -> None:
        self._delete(key)
        if len(value) > self.max_bytes:
            return
        super()._set(key, value, timeout)
        self._held[0] += len(value)
        while self._held[0] > self.max_bytes and self._cache:
            old, dropped = self._cache.popitem()  # the least recently used
            self._expire_info.pop(old, None)
            self._held[0] -= len(dropped)

    def _delete(self, key: str) -> bool:
        size = self._size(key)
        deleted = super()._delete(key)
        if deleted:
            self._held[0] -= size
        return deleted

    def _cull(self) -> None:
        if self._cull_frequency == 0:
            self._cache.clear()
            self._expire_info.clear()
            self._held[0] = 0
            return
        for _ in range(len(self._cache) // self._cull_frequency):
            key, dropped = self._cache.popitem()
            self._expire_info.pop(key, None)
            self._held[0] -= len(dropped)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        with self._lock:
            before = self._size(self.make_and_validate_key(key, version=version))
        value = super().incr(key, delta, version)
        with self._lock:
            self._held[0] += self._size(self.make_and_validate_key(key, version=version)) - before
        return value

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()
            self._expire_info.clear()
            self._held[0] = 0
