"""/readyz and a real beat: while a worker with its beat runs the stale sweep, /readyz says the beat
is on time; once it is stopped, /readyz names the beat within three sweep intervals (200 with a
warning; 503 with ``?strict=1``), and an arena left stale meanwhile is named once past its budget."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from arena.task_names import SWEEP_TASK
from stories.services import cell_correct
from stories.values import CellValue, Proof, Verdict
from tests.infra.services import celery_worker, database_url, wait_for
from tests.integration.test_durable_recompute import (  # noqa: F401 - fixtures
    broker,
    hatchet_approval_cell,
    redis,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def readyz(strict: bool = False) -> tuple[int, dict]:
    response = Client().get("/readyz?strict=1" if strict else "/readyz")
    return response.status_code, response.json()


def test_a_stopped_beat_and_the_arena_it_leaves_stale_are_reported(seeded_arena, broker, settings):  # noqa: F811
    settings.CELERY_BEAT_SCHEDULE = {
        "recompute-stale-arenas": {"task": SWEEP_TASK, "schedule": timedelta(seconds=1)}
    }
    settings.RECOMPUTE_STALE_BUDGET_SECONDS = 2
    env = {
        "CELERY_BROKER_URL": broker.url,
        "DATABASE_URL": database_url(),
        "STALE_SWEEP_SECONDS": "1",
    }
    with celery_worker(env) as worker:
        worker.wait_for_log(f"Task {SWEEP_TASK}[")
        wait_for(lambda: readyz(strict=True)[0] == 200, 10, what="/readyz without warnings")
        assert readyz()[1]["checks"]["beat"] == "ok"
    # no beat, no worker: a change waits in the queue, the arena stays stale
    cell_correct(cell=hatchet_approval_cell(), value=CellValue(Verdict.FULL, Proof.PROBED, 9))
    wait_for(lambda: "beat" in readyz()[1].get("warnings", ()), 10, what="the beat reported late")
    wait_for(lambda: "arenas" in readyz()[1].get("warnings", ()), 10, what="the arena reported")
    status, body = readyz()
    assert status == 200 and body["status"] == "ok"
    assert body["checks"]["beat"].startswith("warning: the stale sweep last ran ")
    assert body["checks"]["arenas"] == f"warning: stale for more than 2s: {seeded_arena.slug}"
    status, body = readyz(strict=True)
    assert status == 503 and body["failing"] == ["arenas", "beat"]
