"""Client identity behind proxies (web/http/clients.py): who the client is, and what counts as one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import RequestFactory

from web.http.clients import (
    client_address,
    client_hash,
    client_key,
    lockout_address,
    parse_address,
)

ROOT = Path(settings.BASE_DIR)
PROXY1, PROXY2 = "10.0.0.1", "10.0.0.2"


@pytest.fixture(autouse=True)
def our_proxies(settings):
    """Our proxies send from 10.0.0.0/24 (and loopback, as by default)."""
    settings.TRUSTED_PROXY_IPS = ["127.0.0.1", "::1", "10.0.0.0/24"]


def request(remote: str = "192.0.2.10", xff: str | None = None):
    extra = {"REMOTE_ADDR": remote}
    if xff is not None:
        extra["HTTP_X_FORWARDED_FOR"] = xff
    return RequestFactory().get("/", **extra)


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("203.0.113.7", "203.0.113.7"),
        (" 203.0.113.7 ", "203.0.113.7"),
        ("203.0.113.7:5555", "203.0.113.7"),
        ("2001:DB8::1", "2001:db8::1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("2001:db8:0:0::1", "2001:db8::1"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("fe80::1%eth0", "fe80::1"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("::FFFF:cb00:7107", "203.0.113.7"),
        ("[::ffff:203.0.113.7]:80", "203.0.113.7"),
    ],
)
def test_addresses_are_normalised(raw, parsed):
    assert str(parse_address(raw)) == parsed


@pytest.mark.parametrize(
    "junk", ["", "unknown", "hello", "999.1.1.1", "1.2.3", "[2001:db8::1", "_hidden", "1.2.3.4:x:y"]
)
def test_junk_is_not_an_address(junk):
    assert parse_address(junk) is None


def test_without_trusted_proxies_x_forwarded_for_is_ignored(settings):
    settings.TRUSTED_PROXIES = 0
    assert client_address(request("192.0.2.10", xff="203.0.113.7")) == "192.0.2.10"
    assert client_key(request("192.0.2.10", xff="1.1.1.1")) == client_key(
        request("192.0.2.10", xff="2.2.2.2")
    )
    assert client_address(request("::ffff:192.0.2.10")) == "192.0.2.10"


def test_one_proxy_takes_the_entry_it_appended(settings):
    settings.TRUSTED_PROXIES = 1
    assert client_address(request(PROXY1, xff="203.0.113.7")) == "203.0.113.7"
    # the client wrote the left-most entries itself: never believed
    assert client_address(request(PROXY1, xff="1.1.1.1, 203.0.113.7")) == "203.0.113.7"
    assert client_address(request(PROXY1, xff="127.0.0.1,198.51.100.1, 203.0.113.7")) == (
        "203.0.113.7"
    )
    # no header: the proxy did not forward one (or the request did not come through it)
    assert client_address(request(PROXY1)) == PROXY1
    assert client_address(request(PROXY1, xff="")) == PROXY1


def test_spoofed_headers_all_give_one_key(settings):
    settings.TRUSTED_PROXIES = 1
    keys = {
        client_key(request(PROXY1, xff=f"{spoof}, 203.0.113.7"))
        for spoof in ("1.1.1.1", "2.2.2.2", "2001:db8::9", "garbage", "10.0.0.1, 10.0.0.2")
    }
    assert keys == {client_key(request(PROXY1, xff="203.0.113.7"))}


def test_several_proxies(settings):
    settings.TRUSTED_PROXIES = 2
    # client → proxy1 (appends client) → proxy2 (appends proxy1) → app (REMOTE_ADDR = proxy2)
    assert client_address(request(PROXY2, xff=f"203.0.113.7, {PROXY1}")) == "203.0.113.7"
    assert client_address(request(PROXY2, xff=f"6.6.6.6, 203.0.113.7, {PROXY1}")) == "203.0.113.7"
    # shorter than the proxy chain: the client reached proxy2 directly, which wrote its address
    assert client_address(request(PROXY2, xff="6.6.6.6")) == "6.6.6.6"
    assert client_address(request(PROXY2, xff="1.1.1.1, 6.6.6.6")) == "6.6.6.6"
    # a proxy of ours that forwarded nothing sent the request itself
    assert client_address(request(PROXY2, xff=PROXY1)) == PROXY1
    settings.TRUSTED_PROXIES = 3
    chain = f"6.6.6.6, 2001:db8::7, {PROXY1}, 10.0.0.3"
    assert client_address(request(PROXY2, xff=chain)) == "2001:db8::7"


@pytest.mark.parametrize("trusted", [1, 2])
def test_a_client_reaching_the_app_directly_is_remote_addr_whatever_it_forwards(settings, trusted):
    settings.TRUSTED_PROXIES = trusted
    for spoof in ("203.0.113.7", f"203.0.113.7, {PROXY1}", "1.1.1.1, 2.2.2.2, 127.0.0.1"):
        assert client_address(request("198.51.100.7", xff=spoof)) == "198.51.100.7"
        assert lockout_address(request("198.51.100.7", xff=spoof)) == "198.51.100.7"
    keys = {client_key(request("198.51.100.7", xff=f"192.0.2.{i}")) for i in range(20)}
    assert keys == {client_key(request("198.51.100.7"))}


def test_the_chain_is_walked_only_through_our_proxies(settings):
    settings.TRUSTED_PROXIES = 2
    # 10.0.0.9 is in our network, 10.1.0.1 is not: the walk stops at the first hop not ours
    assert client_address(request(PROXY2, xff="6.6.6.6, 10.1.0.1")) == "10.1.0.1"
    assert client_address(request(PROXY2, xff="6.6.6.6, 10.0.0.9")) == "6.6.6.6"
    settings.TRUSTED_PROXY_IPS = ["10.0.0.2"]  # only proxy2: proxy1's entries are a client's
    assert client_address(request(PROXY2, xff=f"6.6.6.6, {PROXY1}")) == PROXY1
    settings.TRUSTED_PROXY_IPS = ["2001:db8:ff::/48"]
    assert client_address(request("2001:db8:ff::5", xff="6.6.6.6, 2001:db8:ff:1::5")) == "6.6.6.6"
    assert client_address(request("::ffff:10.0.0.2", xff="6.6.6.6")) == "10.0.0.2"


def test_loopback_is_trusted_by_default_and_nothing_without_trusted_proxies(settings):
    settings.TRUSTED_PROXY_IPS = ["127.0.0.1", "::1"]  # the default (from the environment below)
    settings.TRUSTED_PROXIES = 1
    assert client_address(request("127.0.0.1", xff="203.0.113.7")) == "203.0.113.7"
    assert client_address(request("::1", xff="203.0.113.7")) == "203.0.113.7"
    assert client_address(request(PROXY1, xff="203.0.113.7")) == PROXY1
    settings.TRUSTED_PROXIES = 0
    assert client_address(request("127.0.0.1", xff="203.0.113.7")) == "127.0.0.1"


def test_junk_falls_back_to_the_next_trusted_hop(settings):
    settings.TRUSTED_PROXIES = 1
    assert client_address(request(PROXY1, xff="unknown")) == PROXY1
    assert client_address(request(PROXY1, xff="203.0.113.7, _hidden")) == PROXY1
    settings.TRUSTED_PROXIES = 2
    assert client_address(request(PROXY2, xff=f"6.6.6.6, garbage, {PROXY1}")) == PROXY1
    assert client_address(request(PROXY2, xff="6.6.6.6, garbage, junk")) == PROXY2
    assert client_address(request("", xff="6.6.6.6, junk, junk")) == "unknown"


def test_forwarded_ipv6_spellings_are_one_client(settings):
    settings.TRUSTED_PROXIES = 1
    spellings = [
        "2001:db8:1:2::1",
        "2001:DB8:1:2:0:0:0:1",
        "[2001:db8:1:2::1]:51234",
        "2001:0db8:0001:0002:0000:0000:0000:0001",
    ]
    assert {client_address(request(PROXY1, xff=s)) for s in spellings} == {"2001:db8:1:2::1"}
    assert client_address(request(PROXY1, xff="::ffff:203.0.113.7")) == "203.0.113.7"
    assert client_key(request(PROXY1, xff="::ffff:203.0.113.7")) == client_key(
        request("203.0.113.7")
    )


def test_ipv6_clients_are_keyed_per_64(settings):
    settings.TRUSTED_PROXIES = 0
    same64 = ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2:abcd::42"]
    assert len({client_key(request(a)) for a in same64}) == 1
    assert client_key(request("2001:db8:1:2::1")) != client_key(request("2001:db8:1:3::1"))
    assert client_hash("2001:db8:1:2::1") == client_key(request("2001:db8:1:2::99"))
    # IPv4 neighbours are different clients
    assert client_key(request("203.0.113.7")) != client_key(request("203.0.113.8"))
    assert client_hash("203.0.113.7") == client_key(request("203.0.113.7"))


def test_lockout_address_groups_ipv6_and_never_says_unknown(settings):
    settings.TRUSTED_PROXIES = 1
    assert lockout_address(request(PROXY1, xff="6.6.6.6, 203.0.113.7")) == "203.0.113.7"
    assert lockout_address(request(PROXY1, xff="2001:db8:1:2:dead:beef::1")) == "2001:db8:1:2::"
    assert lockout_address(request("", xff="junk")) is None


def test_keys_are_salted_hashes():
    key = client_hash("203.0.113.7")
    assert len(key) == 64 and "203.0.113" not in key


def settings_in_subprocess(env: dict, name: str = "TRUSTED_PROXIES") -> str:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "TRUSTED_PROXIES",
            "TRUSTED_PROXY_IPS",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        )
    }
    code = f"from django.conf import settings; print(settings.{name})"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize(
    ("env", "trusted"),
    [
        ({}, "0"),
        ({"TRUSTED_PROXIES": "2"}, "2"),
    ],
)
def test_trusted_proxies_from_the_environment(env, trusted):
    assert settings_in_subprocess(env) == trusted


def test_trusted_proxy_ips_from_the_environment():
    assert settings_in_subprocess({}, "TRUSTED_PROXY_IPS") == "['127.0.0.1', '::1']"
    got = settings_in_subprocess(
        {"TRUSTED_PROXY_IPS": "10.0.0.0/8, 2001:db8::1"}, "TRUSTED_PROXY_IPS"
    )
    assert got == "['10.0.0.0/8', '2001:db8::1']"


def test_a_trusted_proxy_ips_entry_that_is_no_address_stops_the_start():
    with pytest.raises(
        AssertionError, match="TRUSTED_PROXY_IPS: 'varnish' does not appear to be an IPv4 or IPv6"
    ):
        settings_in_subprocess({"TRUSTED_PROXY_IPS": "127.0.0.1,varnish"})


@pytest.mark.django_db
def test_an_anonymous_api_client_is_counted_by_the_anonymous_throttle_only(
    client, django_user_model
):
    """One count per request (each is a cache round trip or two): the user throttle counts only the
    signed-in, whom the anonymous throttle leaves alone."""
    from django.core.cache import cache

    from web.http.clients import AnonRateThrottle, UserRateThrottle

    def post():  # refused after the throttles have counted it; never served from a cache
        return client.post("/api/flags/", "{}", content_type="application/json").status_code

    cache.clear()
    assert post() == 400
    ident = client_key(RequestFactory().get("/", REMOTE_ADDR="127.0.0.1"))
    assert cache.get(f"throttle_anon_{ident}") is not None
    assert cache.get(f"throttle_user_{ident}") is None

    user = django_user_model.objects.create_user("reader", password="a long pass phrase")
    client.force_login(user)
    cache.clear()
    assert post() == 400
    assert cache.get(f"throttle_user_{user.pk}") is not None
    assert cache.get(f"throttle_anon_{ident}") is None
    assert {AnonRateThrottle.scope, UserRateThrottle.scope} == {"anon", "user"}
