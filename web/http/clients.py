"""Who is asking: the client address behind our proxies and its salted ``client_key``."""

from __future__ import annotations

import functools
import hashlib
import ipaddress
from typing import TYPE_CHECKING

from django.conf import settings
from django.http import HttpRequest
from rest_framework import throttling
from rest_framework.request import Request

if TYPE_CHECKING:  # DRF's views import its settings, which import these throttles
    from rest_framework.views import APIView

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPV6_CLIENT_PREFIX = 64
UNKNOWN = "unknown"


def parse_address(value: str | None) -> IPAddress | None:
    """``"1.2.3.4:5678"``, ``"[2001:db8::1]:443"``, ``"::ffff:1.2.3.4"`` → an address, or None."""
    text = (value or "").strip().strip('"').strip()
    if text.startswith("["):  # [v6] or [v6]:port
        if (end := text.find("]")) == -1:
            return None
        text = text[1:end]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    text = text.partition("%")[0]  # an IPv6 zone id ("fe80::1%eth0") says nothing about the client
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


@functools.lru_cache(maxsize=8)
def proxy_networks(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    # (the settings refuse an entry that is neither an address nor a network)
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)


def is_trusted_proxy(address: IPAddress | None) -> bool:
    if address is None or settings.TRUSTED_PROXIES < 1:
        return False
    return any(address in net for net in proxy_networks(tuple(settings.TRUSTED_PROXY_IPS)))


def client_ip(request: HttpRequest) -> IPAddress | None:
    """X-Forwarded-For + REMOTE_ADDR read from the right while the hop is a trusted proxy."""
    hop = parse_address(request.META.get("REMOTE_ADDR", ""))
    entries = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    for _ in range(settings.TRUSTED_PROXIES):
        if not is_trusted_proxy(hop) or not entries:
            return hop  # not our proxy: the hop that reached us is the client
        if (previous := parse_address(entries.pop())) is None:
            return hop  # junk where our proxy wrote: the proxy is the best we know
        hop = previous
    return hop  # what the outermost of our proxies saw


def client_address(request: HttpRequest) -> str:
    address = client_ip(request)
    return str(address) if address is not None else UNKNOWN


def _client_of(address: IPAddress) -> IPAddress | ipaddress.IPv6Network:
    """An IPv6 client by its /64, which one client holds."""
    if isinstance(address, ipaddress.IPv6Address):
        return ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False)
    return address


def client_hash(address: str) -> str:
    parsed = parse_address(address)
    group = str(_client_of(parsed)) if parsed is not None else address
    return hashlib.sha256(f"{settings.SECRET_KEY}:flag-client:{group}".encode()).hexdigest()


def client_key(request: HttpRequest) -> str:
    return client_hash(client_address(request))


def lockout_address(request: HttpRequest) -> str | None:
    """AXES_CLIENT_IP_CALLABLE: an IPv6 client by its /64's first address; None when unknown."""
    address = client_ip(request)
    client = None if address is None else _client_of(address)
    return None if client is None else str(getattr(client, "network_address", client))


class ByClientKey:
    """DRF's own get_ident() believes the client-written X-Forwarded-For; this counts by client_key."""

    def get_ident(self, request: Request) -> str:
        return client_key(request)


class AnonRateThrottle(ByClientKey, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(ByClientKey, throttling.UserRateThrottle):
    """Signed-in users only: DRF's would count an anonymous client a second time."""

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)
