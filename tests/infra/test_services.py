"""The service helpers start and stop real services (no Django database needed)."""

import os
import socket
import textwrap
from pathlib import Path

import pytest
import redis
from celery import Celery

from tests.infra.services import (
    RedisServer,
    ServiceError,
    celery_worker,
    chromium_browser,
    free_port,
    port_is_open,
    redis_server,
)


def test_free_port_is_bindable() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


@pytest.mark.integration
def test_redis_server_answers_stops_and_comes_back_on_the_same_port() -> None:
    with redis_server() as server:
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        client = redis.Redis.from_url(server.url, socket_connect_timeout=0.5, socket_timeout=1)
        assert client.ping() is True
        client.set("greeting", "hi")
        assert client.get("greeting") == b"hi"

        server.stop()
        assert not server.is_running()
        with pytest.raises(redis.ConnectionError):
            redis.Redis.from_url(server.url, socket_connect_timeout=0.5).ping()

        port = server.port
        server.start()
        assert server.port == port
        client = redis.Redis.from_url(server.url, socket_connect_timeout=0.5, socket_timeout=1)
        assert client.ping() is True
        assert client.get("greeting") is None  # no persistence: a fresh, empty server
        assert "Ready to accept connections" in server.log
    assert not port_is_open(port)


@pytest.mark.integration
def test_redis_server_kill_and_clear_error_when_the_port_is_taken() -> None:
    with redis_server() as server:
        server.kill()
        assert not server.ping()
        with socket.socket() as blocker:
            blocker.bind(("127.0.0.1", server.port))
            blocker.listen()
            with pytest.raises(ServiceError, match="already taken"):
                server.start()
        server.start()
        assert server.ping()


def test_a_service_that_fails_to_start_reports_its_log() -> None:
    taken = free_port()
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", taken))
        blocker.listen()
        server = RedisServer(port=taken)
        try:
            # bypass the friendly port check: redis itself must fail and its log be shown
            with pytest.raises(ServiceError, match=r"(?s)exited with code.*--- log"):
                server._spawn(timeout=10)
        finally:
            server.close()


TINY_CELERY_APP = """
import os
from celery import Celery

app = Celery("tinyapp", broker=os.environ["CELERY_BROKER_URL"])
app.conf.beat_schedule = {"tick": {"task": "tinyapp.tick", "schedule": 0.5}}

@app.task(name="tinyapp.tick")
def tick():
    print("TICK-RAN", flush=True)

@app.task(name="tinyapp.echo")
def echo(word):
    print(f"ECHO {word}", flush=True)
"""


@pytest.mark.integration
def test_celery_worker_helper_runs_tasks_and_beat_survives_stop_kill_start(tmp_path: Path) -> None:
    """The helper itself, on a tiny Celery app (the project's app is exercised elsewhere)."""
    (tmp_path / "tinyapp.py").write_text(textwrap.dedent(TINY_CELERY_APP))
    with redis_server() as server:
        env = {"CELERY_BROKER_URL": server.url, "PYTHONPATH": str(tmp_path)}
        client = server.client()

        def send_echo(
            word: str,
        ) -> None:  # the message the tiny app's producer would publish, by hand
            # not the current app: the project's code sends its tasks through celery.current_app,
            # which must not be left pointing at this server once it is stopped
            producer = Celery("producer", broker=server.url, set_as_current=False)
            producer.send_task("tinyapp.echo", args=[word])

        with celery_worker(env, app="tinyapp") as worker:
            assert worker.is_running()
            worker.wait_for_log("TICK-RAN", timeout=30)  # embedded beat works
            send_echo("one")
            worker.wait_for_log("ECHO one", timeout=30)

            assert worker.stop() == 0  # warm shutdown
            assert not worker.is_running()
            send_echo("two")  # queued in Redis while no worker runs
            assert client.llen("celery") >= 1
            worker.start()
            worker.wait_for_log("ECHO two", timeout=30)

            worker.kill()
            assert worker.process is not None
            assert worker.process.returncode == -9
            worker.start()
            send_echo("three")
            worker.wait_for_log("ECHO three", timeout=30)
            pid = worker.pid
        assert not worker.is_running() and pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.e2e
def test_chromium_opens_a_page_and_reads_the_heading() -> None:
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    with chromium_browser() as browser:
        assert os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] == "true"
        page = browser.new_page()
        page.goto("data:text/html,<h1>hi</h1>")
        assert page.locator("h1").inner_text() == "hi"
        page.close()
    assert os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE") == before
