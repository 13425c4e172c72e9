"""A purge the HTTP cache refuses is a warning that says why: a real Varnish with the bundled VCL
and its purge token, purged with the wrong token, then the right one."""

from __future__ import annotations

import logging

import pytest

from ops import purge
from tests.infra.services import free_port
from tests.integration.test_varnish import TOKEN, VARNISHD, Varnish

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        VARNISHD is None, reason="varnishd is not installed (apt-get install varnish)"
    ),
]


@pytest.fixture
def varnish():
    # (a purge never reaches the backend: none is needed)
    server = Varnish(free_port(), env={"VARNISH_PURGE_TOKEN": TOKEN})
    try:
        yield server.start()
    finally:
        server.close()


def test_a_wrong_token_is_logged_as_a_warning_with_the_reason(varnish, settings, caplog):
    settings.HTTP_CACHE_PURGE_URLS = [varnish.url + "/"]
    settings.HTTP_CACHE_PURGE_TOKEN = "not-the-token"
    with caplog.at_level(logging.INFO, logger="ops.purge"):
        assert purge.http_cache_purge(["site"]) == [varnish.url + "/"]
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    message = record.getMessage()  # (the reason phrase is the VCL's: "Wrong purge token")
    assert message.startswith(f"purge of site at {varnish.url}/ refused: HTTP 403 ")
    assert message.endswith(": HTTP_CACHE_PURGE_TOKEN is missing or not the cache's purge token")
    caplog.clear()
    settings.HTTP_CACHE_PURGE_TOKEN = TOKEN
    with caplog.at_level(logging.INFO, logger="ops.purge"):
        assert purge.http_cache_purge(["site"]) == []
    assert not caplog.records
