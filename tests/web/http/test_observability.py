"""What an operator sees (web/http/observability.py, web/views/metrics.py, config/celery.py): a
request id on every response and log line (the tasks a request queues included), one access log
line per request with the page cache's verdict, JSON logs, and /metrics behind its token."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import logging.config
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from arena.models import GIVE_UP_AFTER, Arena
from flags.models import Notice
from tests.factories import FlagFactory, ReviewItemFactory
from tests.infra.sentry import exception_types, sentry_recorder
from tests.infra.services import (
    PROJECT_ROOT,
    HttpRequest,
    database_url,
    live_server_process,
    simultaneous_requests,
)
from web.http import requestid

ARENA = "/arenas/durable-execution-engines/"
TOKEN = "s3cret-metrics-token"


@contextlib.contextmanager
def json_log(*loggers: str) -> Iterator[list[dict]]:
    """The JSON lines the site's handler would write (its formatter and filter from LOGGING),
    for the records of ``loggers`` at INFO; the list fills when the block ends."""
    config = django_settings.LOGGING
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        logging.config.DictConfigurator(config).configure_formatter(
            dict(config["formatters"]["json"])  # (it takes the "()" out of what it is given)
        )
    )
    handler.addFilter(requestid.RequestIdFilter())
    lines: list[dict] = []
    olds = []
    for name in loggers:
        logger = logging.getLogger(name)
        olds.append((logger, logger.level))
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
    try:
        yield lines
    finally:
        for logger, level in olds:
            logger.removeHandler(handler)
            logger.setLevel(level)
        lines.extend(json.loads(line) for line in stream.getvalue().splitlines())


def scrape(client: Client) -> dict[tuple[str, tuple], float]:
    """/metrics with the token, parsed: {(sample name, sorted labels): value}."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN


# ---------------------------------------------------------------- the request id


def test_a_request_without_an_id_gets_a_new_one_on_its_response(client):
    first, second = client.get("/healthz"), client.get("/healthz")
    assert re.fullmatch(r"[0-9a-f]{32}", first["X-Request-ID"])
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_a_sane_incoming_id_is_kept(client):
    response = client.get("/healthz", HTTP_X_REQUEST_ID="lb-7f3a.2_x")
    assert response["X-Request-ID"] == "lb-7f3a.2_x"


@pytest.mark.parametrize(
    "given", ["x" * 65, "two words", "<script>", "a\\nb", "é", "id;rm", "../etc"]
)
def test_an_incoming_id_too_long_or_odd_is_replaced(client, given):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=given)
    assert response.status_code == 200
    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


def test_log_lines_outside_a_request_say_so():
    with json_log("arena.obs-test") as lines:
        logging.getLogger("arena.obs-test").warning("no request here")
    assert lines[0]["request_id"] == "-" and lines[0]["message"] == "no request here"


# ---------------------------------------------------------------- the access log


@pytest.mark.django_db
def test_the_access_log_has_one_json_line_per_request_with_the_page_caches_verdict(
    seeded_arena, client
):
    with json_log("arena.access") as lines:
        miss = client.get(ARENA, HTTP_X_REQUEST_ID="first-visit")
        hit = client.get(ARENA)
        client.get("/no/such/page/")
    assert miss.status_code == hit.status_code == 200
    assert [line["request_id"] for line in lines[:2]] == ["first-visit", hit["X-Request-ID"]]
    first, second, missing = lines
    for key in ("timestamp", "level", "logger", "message", "request_id", "duration_ms"):
        assert key in first
    assert first["logger"] == "arena.access" and first["level"] == "INFO"
    assert (first["method"], first["path"], first["status"]) == ("GET", ARENA, 200)
    assert (first["view"], first["cache"], second["cache"]) == ("arena-detail", "miss", "hit")
    assert first["message"].startswith(f"GET {ARENA} 200 ") and "cache=miss" in first["message"]
    assert (missing["status"], missing["cache"], missing["view"]) == (404, None, "<unmatched>")


# ---------------------------------------------------------------- /metrics


@pytest.mark.django_db  # (the 404 page suggests arenas)
def test_metrics_do_not_exist_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", TOKEN])
def test_metrics_refuse_a_missing_or_wrong_token_with_a_message(client, metrics_on, header):
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    response = client.get("/metrics", **extra)
    assert response.status_code == 401
    assert b"Authorization: Bearer" in response.content
    assert response["Cache-Control"] == "no-store" and "WWW-Authenticate" in response


@pytest.mark.django_db
def test_a_page_request_moves_its_counters(seeded_arena, client, metrics_on):
    before = scrape(client)
    client.get(ARENA)
    client.get(ARENA)
    after = scrape(client)

    def moved(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0) - before.get(key, 0)

    labels = {"view": "arena-detail", "method": "GET", "status": "200"}
    assert moved("arena_http_requests_total", **labels) == 2
    assert moved("arena_http_request_duration_seconds_count", view="arena-detail") == 2
    assert moved("arena_page_cache_requests_total", result="hit") >= 1
    assert (
        moved("arena_page_cache_requests_total", result="miss")
        + moved("arena_page_cache_requests_total", result="hit")
        == 2
    )
    assert moved("arena_http_requests_total", view="metrics", method="GET", status="200") == 1


@pytest.mark.django_db
def test_metrics_count_pending_flags_failed_mail_and_the_recompute_lag(
    client, metrics_on, django_assert_max_num_queries
):
    items = ReviewItemFactory.create_batch(3, created_at=timezone.now() - timedelta(hours=2))
    flag = FlagFactory.create(item=items[0])
    now = timezone.now()
    for status in (Notice.State.FAILED, Notice.State.FAILED, Notice.State.SENT):
        Notice.objects.create(
            kind=Notice.Kind.RECEIVED, flag=flag, status=status, created_at=now, next_attempt_at=now
        )
    Arena.objects.filter(pk=items[0].cell.story.arena_id).update(
        scores_stale_since=now - timedelta(seconds=90)
    )
    # another arena's change failed to recompute as often as the sweep tries it
    Arena.objects.filter(pk=items[1].cell.story.arena_id).update(
        change_seq=4, recompute_failed_seq=4, recompute_failures=GIVE_UP_AFTER
    )
    with django_assert_max_num_queries(5):  # the same few queries, whatever the tables hold
        samples = scrape(client)
    assert samples[("arena_database_up", ())] == 1
    assert samples[("arena_flags_pending", ())] == 3
    assert 7100 < samples[("arena_flags_oldest_pending_seconds", ())] < 7300
    assert samples[("arena_notices", (("state", "failed"),))] == 2
    assert samples[("arena_notices", (("state", "sent"),))] == 1
    assert samples[("arena_notices", (("state", "pending"),))] == 0  # every state, 0 for none
    assert samples[("arena_notices_retrying", ())] == 0
    assert 89 < samples[("arena_recompute_lag_seconds", ())] < 120
    assert samples[("arena_recompute_given_up", ())] == 1
    assert not [k for k in samples if k[0] == "arena_celery_queue_length"]  # no broker here


def test_a_made_up_method_is_counted_as_other(client, metrics_on, db):
    before = scrape(client)
    assert client.generic("BREW", "/healthz").status_code == 405
    key = (
        "arena_http_requests_total",
        (("method", "other"), ("status", "405"), ("view", "healthz")),
    )
    assert scrape(client)[key] - before.get(key, 0) == 1
    assert not [k for k in scrape(client) if ("method", "BREW") in k[1]]


def test_metrics_are_never_cached_nor_crawled(client, metrics_on, db):
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response["Cache-Control"] == "no-store"
    assert "Disallow: /metrics" in client.get("/robots.txt").content.decode()
    assert "/metrics" not in client.get("/sitemap.xml").content.decode()


# ---------------------------------------------------------------- errors to Sentry


def test_an_error_reaches_sentry_with_its_request_id_and_no_personal_data(tmp_path):
    """A real server process with SENTRY_DSN set, on a database without its tables: every page
    fails (the database's error, a 500), and the report reaches the (local) Sentry endpoint."""
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    with sentry_recorder() as sentry:
        env = {
            "SENTRY_DSN": sentry.dsn,
            "SENTRY_ENVIRONMENT": "obs-test",
            "RELEASE": "r-obs-1",
            "DATABASE_URL": f"sqlite:///{empty}",
            "METRICS_TOKEN": TOKEN,
        }
        with live_server_process(env, ready_path="/healthz") as url:
            request = urllib.request.Request(
                url + "/",
                headers={"X-Request-ID": "boom-1", "Cookie": "sessionid=private-session"},
            )
            with pytest.raises(urllib.error.HTTPError) as failed:
                urllib.request.urlopen(request, timeout=10)
            assert failed.value.code == 500
            assert failed.value.headers["X-Request-ID"] == "boom-1"
            event = sentry.wait_for_event(lambda e: e.get("tags", {}).get("request_id") == "boom-1")
            # /metrics still answers: the counters, and that the database did not
            scrape_request = urllib.request.Request(
                url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
            )
            with urllib.request.urlopen(scrape_request, timeout=10) as response:
                text = response.read().decode()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    assert samples[("arena_database_up", ())] == 0
    home = (("method", "GET"), ("status", "500"), ("view", "home"))
    assert samples[("arena_http_requests_total", home)] == 1
    assert "OperationalError" in exception_types(event)
    assert (event["environment"], event["release"]) == ("obs-test", "r-obs-1")
    assert sentry.paths[0] == "/api/1/envelope/"
    assert "private-session" not in json.dumps(event)  # send_default_pii=False: no cookies


def test_metrics_add_up_every_gunicorn_worker(tmp_path, db):
    """Two gunicorn worker processes in multiprocess mode: each request is counted once, whichever
    process served it or serves the scrape."""
    folder = tmp_path / "prometheus"
    folder.mkdir()
    env = {
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
        "METRICS_TOKEN": TOKEN,
        "DATABASE_URL": database_url(),
    }
    with live_server_process(env, server="gunicorn", workers=2, ready_path="/healthz") as url:
        # at the same moment: both processes serve some
        burst = simultaneous_requests(url, [HttpRequest("GET", "/robots.txt")] * 12)
        assert [r.status for r in burst] == [200] * 12
        request = urllib.request.Request(
            url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
    counts = {
        sample.labels["view"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "arena_http_requests_total" and sample.labels["status"] == "200"
    }
    assert counts["robots-txt"] == 12


# ---------------------------------------------------------------- settings checked at start-up


@pytest.mark.parametrize(
    "env,message",
    [
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT is text or json"),
        ({"SENTRY_TRACES_SAMPLE_RATE": "2"}, "SENTRY_TRACES_SAMPLE_RATE is between 0 and 1"),
        ({"PROMETHEUS_MULTIPROC_DIR": "/no/such/folder"}, "PROMETHEUS_MULTIPROC_DIR: no folder"),
    ],
)
def test_a_bad_observability_setting_stops_the_process_at_start_up(env, message):
    started = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=PROJECT_ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode != 0 and message in started.stderr
