"""A Redis cache that degrades to a miss instead of an error page when Redis is down.

The cache only serves throttling counters and the like; a broken Redis must never take the site down.
"""

import logging

from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)


def _safe(name, default=None):
    def method(self, *args, **kwargs):
        try:
            return getattr(super(ResilientRedisCache, self), name)(*args, **kwargs)
        except Exception:  # noqa: BLE001 - redis.exceptions.* and socket errors alike
            log.warning("cache %s failed; carrying on without the cache", name, exc_info=True)
            return default() if callable(default) else default

    method.__name__ = name
    return method


class ResilientRedisCache(RedisCache):
    get = _safe("get")
    set = _safe("set")
    add = _safe("add", False)
    delete = _safe("delete", False)
    touch = _safe("touch", False)
    get_many = _safe("get_many", dict)
    set_many = _safe("set_many", list)
    delete_many = _safe("delete_many")
    has_key = _safe("has_key", False)
    incr = _safe("incr", 0)
    clear = _safe("clear")
