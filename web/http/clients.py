"""Who is asking: the client address of a request (behind trusted proxies) and the salted key that
rate limits and the "one pending flag per client per cell" rule count by.

Addresses are never stored; only ``client_key`` (a salted SHA-256) is.

**Proxies.** ``settings.TRUSTED_PROXIES`` is the number of reverse proxies in front of the app
(default 0) and ``settings.TRUSTED_PROXY_IPS`` the addresses or networks they send from (default
loopback). Each proxy appends the address it received the request from to ``X-Forwarded-For``, so
the chain ``X-Forwarded-For entries + [REMOTE_ADDR]`` is read from the right: REMOTE_ADDR, then
each entry in turn, while the hop just read is one of our proxies (a trusted address) and fewer
than TRUSTED_PROXIES hops were read. The first hop that is not a proxy of ours, or the entry left of
the TRUSTED_PROXIES-th proxy, is the client; everything further left was written by the client and
is never believed. A request whose REMOTE_ADDR is not a trusted proxy came straight to the app:
REMOTE_ADDR is the client and the header is ignored whatever it says (gunicorn listens on loopback
by default when a proxy is trusted, gunicorn.conf.py).

**Addresses** are normalised with :mod:`ipaddress` (IPv6 spellings compress to one form, IPv4-mapped
IPv6 becomes IPv4, ports, brackets and zone ids are dropped); an entry that is not an address falls
back to the hop right of it (the proxy that wrote it), and finally to REMOTE_ADDR.

**Keys.** One IPv6 client usually holds a whole /64 (and can pick a new address in it at will), so
``client_key`` and the admin lock-out count IPv6 clients per /64 and IPv4 clients per address.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress

from django.conf import settings
from django.http import HttpRequest
from rest_framework import throttling
from rest_framework.request import Request

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPV6_CLIENT_PREFIX = 64
UNKNOWN = "unknown"


def parse_address(value: str | None) -> IPAddress | None:
    """``value`` as an address (``"1.2.3.4"``, ``"1.2.3.4:5678"``, ``"2001:DB8::1"``,
    ``"[2001:db8::1]:443"``, ``"::ffff:1.2.3.4"`` → ``1.2.3.4``), or None when it is not one."""
    text = (value or "").strip().strip('"').strip()
    if not text:
        return None
    if text.startswith("["):  # [v6] or [v6]:port
        end = text.find("]")
        if end == -1:
            return None
        text = text[1:end]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    text = text.partition("%")[0]  # an IPv6 zone id ("fe80::1%eth0") says nothing about the client
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@functools.lru_cache(maxsize=8)
def proxy_networks(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    """``TRUSTED_PROXY_IPS`` (addresses or networks: ``"127.0.0.1"``, ``"10.0.0.0/8"``) as networks;
    ValueError names an entry that is neither."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an address or network: {entry!r}") from None
    return tuple(networks)


def is_trusted_proxy(address: IPAddress | None) -> bool:
    """Whether ``address`` is one of our own proxies: TRUSTED_PROXIES is above 0 and the address is
    in TRUSTED_PROXY_IPS."""
    if address is None or settings.TRUSTED_PROXIES < 1:
        return False
    return any(address in net for net in proxy_networks(tuple(settings.TRUSTED_PROXY_IPS)))


def client_ip(request: HttpRequest) -> IPAddress | None:
    """The client's address behind ``settings.TRUSTED_PROXIES`` proxies sending from
    ``settings.TRUSTED_PROXY_IPS``, or None when REMOTE_ADDR holds no address."""
    hop = parse_address(request.META.get("REMOTE_ADDR", ""))
    entries = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    for _ in range(settings.TRUSTED_PROXIES):
        if not is_trusted_proxy(hop) or not entries:
            return hop  # not our proxy: the hop that reached us is the client
        previous = parse_address(entries.pop())
        if previous is None:  # junk where our proxy wrote: the proxy is the best we know
            return hop
        hop = previous
    return hop  # what the outermost of our proxies saw


def client_address(request: HttpRequest) -> str:
    """The address of the client that sent ``request`` (normalised), or ``"unknown"``."""
    address = client_ip(request)
    return str(address) if address is not None else UNKNOWN


def _ipv6_client(address: ipaddress.IPv6Address) -> ipaddress.IPv6Network:
    """The /64 an IPv6 client holds."""
    return ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False)


def client_network(address: IPAddress) -> str:
    """What counts as one client: an IPv4 address, or an IPv6 /64 (``"2001:db8:1:2::/64"``)."""
    if isinstance(address, ipaddress.IPv6Address):
        return str(_ipv6_client(address))
    return str(address)


def client_hash(address: str) -> str:
    """Client addresses are stored only as a salted hash: of the address for IPv4, of its /64 for
    IPv6 (every spelling of one address, and every address of one /64, give the same hash)."""
    parsed = parse_address(address)
    group = client_network(parsed) if parsed is not None else address
    return hashlib.sha256(f"{settings.SECRET_KEY}:flag-client:{group}".encode()).hexdigest()


def client_key(request: HttpRequest) -> str:
    """The salted key of the request's client, as flags and rate limits count it."""
    return client_hash(client_address(request))


def lockout_address(request: HttpRequest) -> str | None:
    """The address django-axes records and locks out by (``AXES_CLIENT_IP_CALLABLE``): the client's
    IPv4 address, or the first address of its IPv6 /64 (one client cannot dodge the lock-out by
    walking through its /64), or None when unknown (axes stores NULL; the column is an inet on
    PostgreSQL, where ``"unknown"`` would fail)."""
    address = client_ip(request)
    if address is None:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        return str(_ipv6_client(address).network_address)
    return str(address)


# --- DRF throttles that count by client_key. DRF's own get_ident() believes the whole
# client-written X-Forwarded-For header (unless NUM_PROXIES is set), so one client could dodge its
# limit by sending a new header each time; these count per client_key like everything else.


class AnonRateThrottle(throttling.AnonRateThrottle):
    """DRF's anonymous throttle (scope ``anon``), one bucket per client_key."""

    def get_ident(self, request: Request) -> str:
        return client_key(request)


class UserRateThrottle(throttling.UserRateThrottle):
    """DRF's per-user throttle (scope ``user``); anonymous requests count per client_key."""

    def get_ident(self, request: Request) -> str:
        return client_key(request)
