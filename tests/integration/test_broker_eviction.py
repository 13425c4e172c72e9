"""Nothing queued is lost when the cache fills: the documented layout (docs/operations.md, Caching)
is a broker Redis with ``noeviction`` beside a cache Redis with ``allkeys-lru`` and a memory limit.
With the worker stopped, flags are filed and a cell corrected (notice, purge and recompute tasks
wait in the broker), the cache Redis is filled far past its 8 MB with distinct pages, and a real
worker then runs every task that was queued. The layout the docs used to advise (broker and cache
as two databases of one ``allkeys-lru`` Redis) loses queued tasks the same way; and a broker that
can evict is named by the worker's start-up log.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
from django.core.cache import caches

from arena.models import Arena
from flags.forms import FlagForm
from flags.models import Notice, Reason
from flags.services import flag_submit
from stories.models import Cell
from stories.services import cell_correct
from stories.values import CellValue, Proof, Verdict
from tests.factories import ModeratorFactory
from tests.infra.services import RedisServer, celery_worker, database_url, redis_server
from tests.infra.smtp import smtp_server
from tests.integration.test_durable_recompute import broker, converged, redis  # noqa: F401
from tests.web.http.test_health import redis_cache_settings
from web.http.clients import client_hash

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FLAGS = 20
PAGES = 400  # distinct pages of 50 kB: 20 MB into a cache of 8 MB
PAGE = b"<!doctype html>" + b"x" * 50_000


class PurgeRecorder(http.server.ThreadingHTTPServer):
    """A stand-in for Varnish's purge endpoint: answers 200 and keeps each purge's tags."""

    def __init__(self) -> None:
        self.purges: list[str] = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_PURGE(self) -> None:  # noqa: N802 - the method's name
                recorder.purges.append(self.headers.get("Surrogate-Key", ""))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


@pytest.fixture
def purge_endpoint(settings) -> Iterator[PurgeRecorder]:
    server = PurgeRecorder()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.HTTP_CACHE_PURGE_URLS = [server.url]
    settings.HTTP_CACHE_PURGE_TOKEN = ""
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def lru_cache_redis(server: RedisServer) -> RedisServer:
    server.client().config_set("maxmemory", "8mb")
    server.client().config_set("maxmemory-policy", "allkeys-lru")
    return server


def queued(server: RedisServer) -> Counter[str]:
    """The tasks waiting in the broker's queue, by task name."""
    messages = server.client().lrange("celery", 0, -1)
    return Counter(json.loads(m)["headers"]["task"] for m in messages)


def queue_work(arena: Arena) -> None:
    """With no worker: a flag on each of ``FLAGS`` cells (two notices, sent by the one task of the
    new notices, and a purge each) and a correction (a recompute and a purge), every task sent to
    the broker at its commit."""
    cells = list(Cell.objects.filter(story__arena=arena).order_by("pk")[:FLAGS])
    for i, cell in enumerate(cells):
        flag_submit(
            cell=cell,
            form=FlagForm(
                {
                    "reason": Reason.OTHER,
                    "explanation": "The documentation changed since this was judged.",
                    "email": f"reporter{i}@example.com",
                }
            ),
            client=client_hash(f"10.9.0.{i + 1}"),
        )
    cell_correct(cell=cells[0], value=CellValue(Verdict.FULL, Proof.PROBED, 9), note="probe")


def fill_the_page_cache() -> None:
    pages = caches["pages"]
    for i in range(PAGES):
        pages.set(f"/arenas/page-{i}/", PAGE)


def evicted(server: RedisServer) -> int:
    return int(server.client().info("stats")["evicted_keys"])


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
        time.sleep(0.2)


def succeeded(log: str) -> Counter[str]:
    return Counter(re.findall(r"Task ([\w.]+)\[[^\]]+\] succeeded", log))


def test_a_full_cache_redis_evicts_no_queued_task(
    seeded_arena,
    broker,  # noqa: F811 - this process sends to the broker Redis
    purge_endpoint,
    settings,
):
    ModeratorFactory.create(username="mod", email="mod@example.com")
    with redis_server() as cache_server, smtp_server() as smtp:
        lru_cache_redis(cache_server)
        settings.CACHES = redis_cache_settings(cache_server.url)
        queue_work(seeded_arena)
        before = queued(broker)
        notices = Notice.objects.count()
        assert notices == 2 * FLAGS and before["flags.tasks.notices_send_new"] == 1, before
        assert sum(before.values()) >= 1 + FLAGS + 1, before
        fill_the_page_cache()
        assert evicted(cache_server) > 0  # the cache was full and made room
        assert queued(broker) == before and evicted(broker) == 0  # the queue was not touched
        env = {
            "CELERY_BROKER_URL": broker.url,
            "REDIS_URL": cache_server.url,
            "DATABASE_URL": database_url(),
            "EMAIL_HOST": smtp.host,
            "EMAIL_PORT": str(smtp.port),
            "HTTP_CACHE_PURGE_URLS": purge_endpoint.url,
            "SITE_URL": "https://arena.example",
            "RECOMPUTE_DEBOUNCE_SECONDS": "0.5",
        }
        # no beat: what runs is what was queued, no sweep makes up for a lost task
        with celery_worker(env, beat=False) as worker:
            # (the recompute sends a purge of its own: one more than queued)
            wait_until(lambda: succeeded(worker.log) >= before, 60, f"{before} to run")
        assert converged(seeded_arena.pk)
        assert not Notice.objects.exclude(status=Notice.State.SENT).exists()
        assert len(smtp.wait_for(notices)) == notices
        assert len(purge_endpoint.purges) >= before["arena.tasks.http_cache_purge"]
    assert queued(broker) == Counter()


def test_one_lru_redis_for_broker_and_cache_loses_queued_tasks(seeded_arena, broker, settings):  # noqa: F811
    """The failure the two Redis roles avoid: the queue is one more key to an ``allkeys-lru``
    Redis, and the least recently used once pages pour in."""
    lru_cache_redis(broker)
    settings.CACHES = redis_cache_settings(broker.url.replace("/0", "/1"))
    queue_work(seeded_arena)
    before = sum(queued(broker).values())
    fill_the_page_cache()
    assert before >= 2 and evicted(broker) > 0  # the new notices' task and the recompute
    assert sum(queued(broker).values()) < before  # tasks gone, nobody told


def test_the_worker_names_an_evicting_broker_when_it_starts(redis):  # noqa: F811
    redis.client().config_set("maxmemory-policy", "allkeys-lru")
    env = {"CELERY_BROKER_URL": redis.url, "DATABASE_URL": database_url()}
    with celery_worker(env, beat=False) as worker:
        worker.wait_for_log("maxmemory-policy is allkeys-lru")
        [line] = [x for x in worker.log.splitlines() if "maxmemory-policy is allkeys-lru" in x]
    assert " ERROR " in line and "it must be noeviction" in line
