"""Where purges of the HTTP cache in front go (docs/operations.md "Behind a cache")."""

import os

from config.env import env_list

HTTP_CACHE_PURGE_URLS = env_list("HTTP_CACHE_PURGE_URLS", "")
HTTP_CACHE_PURGE_METHOD = os.environ.get("HTTP_CACHE_PURGE_METHOD", "PURGE").strip().upper()
HTTP_CACHE_PURGE_TOKEN = os.environ.get("HTTP_CACHE_PURGE_TOKEN", "")
HTTP_CACHE_PURGE_TIMEOUT = float(os.environ.get("HTTP_CACHE_PURGE_TIMEOUT", "3"))
