"""Who is asking: the client address of a request (behind trusted proxies) and the salted key that
rate limits and the "one pending flag per client per cell" rule count by.

Addresses are never stored; only ``client_key`` (a salted SHA-256) is.
"""

from __future__ import annotations

import hashlib

from django.conf import settings


def client_address(request) -> str:
    """The address of the client that sent ``request``."""
    if settings.TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def client_hash(address: str) -> str:
    """Client addresses are stored only as a salted hash."""
    return hashlib.sha256(f"{settings.SECRET_KEY}:flag-client:{address}".encode()).hexdigest()


def client_key(request) -> str:
    """The salted key of the request's client, as flags store it."""
    return client_hash(client_address(request))
