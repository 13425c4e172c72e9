"""Settings for the HTTP cache in front of the site (Varnish or a CDN): where purges go.

docs/operations.md ("Behind a cache") says how deploy/varnish/default.vcl uses them."""

import os

from config.env import env_list

# Where each change's purge goes: one request per endpoint (comma-separated, e.g.
# "http://127.0.0.1:6081/"); empty: no HTTP cache in front, nothing is sent.
HTTP_CACHE_PURGE_URLS = env_list("HTTP_CACHE_PURGE_URLS", "")
# PURGE or BAN (the bundled VCL answers both the same way: a ban on the tags named)
HTTP_CACHE_PURGE_METHOD = os.environ.get("HTTP_CACHE_PURGE_METHOD", "PURGE").strip().upper()
# Sent as X-Purge-Token when set; the bundled VCL requires it when its own is set.
HTTP_CACHE_PURGE_TOKEN = os.environ.get("HTTP_CACHE_PURGE_TOKEN", "")
# Seconds one purge request may take before it counts as failed (and is retried).
HTTP_CACHE_PURGE_TIMEOUT = float(os.environ.get("HTTP_CACHE_PURGE_TIMEOUT", "3"))
