"""Recomputation through a real redis-server and a real Celery worker (with its beat): debounced
tasks, outages, a killed worker, and the periodic sweep fanning out one task per stale arena.

The web side runs in this test process with CELERY_BROKER_URL pointing at the test Redis; the worker
is a separate process on the same (committed, file or PostgreSQL) test database.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator

import pytest
from django.db.models import F
from django.test import Client

from arena.models import Arena, ProductScore
from arena.recompute import arena_recompute_scores
from arena.task_names import REFRESH_TASK, SWEEP_TASK
from config.celery import app as celery_app
from flags.forms import FlagForm
from flags.mailing import KICKS
from flags.models import Reason, ReviewItem
from flags.services import flag_submit
from stories.models import Cell
from stories.services import cell_correct
from stories.values import CellValue, Proof, Verdict
from tests.factories import CellFactory
from tests.infra.listener import CountingListener
from tests.infra.services import celery_worker, database_url, redis_server
from web.http.clients import client_hash

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True), pytest.mark.long]

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def redis():
    with redis_server() as server:
        yield server


def reset_celery_connections() -> None:
    if celery_app._pool is not None:
        celery_app._pool.force_close_all()
        celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def broker(redis, settings):
    """Switch this process from in-process tasks to the real broker."""
    settings.CELERY_BROKER_URL = redis.url
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.RECOMPUTE_DEBOUNCE_SECONDS = 0.5
    old = {k: celery_app.conf[k] for k in ("broker_url", "task_always_eager")}
    celery_app.conf.update(broker_url=redis.url, task_always_eager=False)
    reset_celery_connections()
    yield redis
    celery_app.conf.update(**old)
    reset_celery_connections()


@contextlib.contextmanager
def web_broker(url: str) -> Iterator[None]:
    """This process's tasks sent to ``url`` for a while (the worker's broker unchanged)."""
    old = celery_app.conf.broker_url
    celery_app.conf.update(broker_url=url)
    reset_celery_connections()
    try:
        yield
    finally:
        celery_app.conf.update(broker_url=old)
        reset_celery_connections()


def worker_env(redis) -> dict:
    return {
        "CELERY_BROKER_URL": redis.url,
        "DATABASE_URL": database_url(),
        "STALE_SWEEP_SECONDS": "2",
        "RECOMPUTE_DEBOUNCE_SECONDS": "0.5",
    }


@pytest.fixture
def arena(transactional_db, seeded_arena):
    """The seed arena, imported and scored in-process (committed before the test starts, so before
    the broker is switched on)."""
    assert seeded_arena.scores_computed_at and not seeded_arena.scores_pending
    return seeded_arena


def hatchet_approval_cell() -> Cell:
    return Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )


def hatchet_score() -> tuple:
    s = ProductScore.objects.get(product__slug="hatchet")
    return (s.pa_score, s.verified, s.with_evidence, s.integrity, s.upheld, s.upheld_in_favour)


def wait_until(predicate, timeout: float, what: str) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def converged(arena_id: int) -> bool:
    a = Arena.objects.get(pk=arena_id)
    return a.scores_stale_since is None and a.computed_seq == a.change_seq


def test_change_waits_in_redis_without_a_worker_then_converges(arena, broker):
    before = hatchet_score()
    cell_correct(
        cell=hatchet_approval_cell(),
        value=CellValue(Verdict.FULL, Proof.PROBED, 9),
        note="probe",
    )
    # no worker: the stored scores stay, the arena says it is stale, the task waits in Redis
    assert hatchet_score() == before
    assert Arena.objects.get(pk=arena.pk).scores_pending
    assert broker.client().llen("celery") == 1
    with celery_worker(worker_env(broker)) as worker:
        took = wait_until(lambda: converged(arena.pk), 30, "the worker to recompute")
        print(f"converged {took:.2f}s after the worker started")
        # the task logs its result once its transaction has committed: just after convergence
        worker.wait_for_log("'recomputed'")
    after = hatchet_score()
    assert after[0] > before[0] and after[1] == before[1] + 1


def queued_tasks(broker) -> int:
    """The tasks waiting in Redis for a worker."""
    return broker.client().llen("celery")


def recomputations(worker) -> int:
    return worker.log.count("'recomputed'")


def wait_for_an_idle_sweep(worker) -> None:
    """Wait for a beat sweep that starts from now and finds no stale arena (it sends nothing)."""
    mark = len(worker.log)
    idle = re.compile(rf"{re.escape(SWEEP_TASK)}\[[^\]]+\] succeeded in [^:]+: \[\]")
    wait_until(lambda: idle.search(worker.log[mark:]), 30, "a sweep finding nothing stale")


def change_each(cell_ids: list[int], step: int) -> None:
    """One committed change per cell (each one a score-moving change of the arena)."""
    for c in Cell.objects.filter(pk__in=cell_ids).order_by("pk"):
        cell_correct(cell=c, value=CellValue(Verdict.PARTIAL, c.proof, (c.quality + step) % 11))


def test_burst_of_changes_leads_to_one_recomputation(arena, broker):
    """Counts what the debounce decided, not how a race between the burst and a worker went: each
    burst is made while no worker consumes, so the tasks it sent are exactly those left in Redis.
    The first change of a burst claims the arena's queued task and sends it, the others find it
    queued and send nothing; the task clears the claim when it starts, so the next burst sends
    one again. Without the debounce every change would send a task of its own."""
    cell_ids = list(
        Cell.objects.filter(story__arena=arena, verdict=Verdict.PARTIAL)
        .order_by("pk")
        .values_list("pk", flat=True)[:100]
    )
    assert len(cell_ids) == 100
    change_each(cell_ids, 1)
    assert queued_tasks(broker) == 1
    with celery_worker(worker_env(broker)) as worker:
        wait_until(lambda: converged(arena.pk) and recomputations(worker) >= 1, 30, "convergence")
        wait_for_an_idle_sweep(worker)  # the beat's sweeps added no recomputation
        assert recomputations(worker) == 1, worker.log[-3000:]
        worker.stop()
        # the task started (and cleared the claim): the next burst sends one task again
        queued = queued_tasks(broker)  # a sweep's duplicate may wait there (it will find it fresh)
        change_each(cell_ids, 2)
        assert queued_tasks(broker) == queued + 1
        worker.start()
        wait_until(lambda: converged(arena.pk) and recomputations(worker) >= 2, 30, "convergence")
        wait_for_an_idle_sweep(worker)
        assert recomputations(worker) == 2, worker.log[-3000:]
    # the stored scores equal a fresh in-process recomputation
    stored = list(
        ProductScore.objects.order_by("rank").values_list("product_id", "pa_score", "verified")
    )
    arena_recompute_scores(arena_id=arena.pk)
    assert (
        list(
            ProductScore.objects.order_by("rank").values_list("product_id", "pa_score", "verified")
        )
        == stored
    )


def test_redis_down_moderator_still_resolves_then_scores_converge(
    arena, broker, django_user_model, monkeypatch
):
    moderator = django_user_model.objects.create_superuser("mod", "m@example.com", "pw")
    cell = hatchet_approval_cell()
    flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": Reason.WRONG_VERDICT,
                "explanation": EXPLANATION,
                "proposed_verdict": Verdict.FULL,
                "proposed_quality": 8,
            }
        ),
        client=client_hash("10.1.1.1"),
    )
    item = ReviewItem.objects.get()
    before = hatchet_score()
    with celery_worker(worker_env(broker)) as worker:
        broker.stop()
        admin = Client()
        admin.force_login(moderator)
        flag_page = Client(REMOTE_ADDR="10.1.1.2")
        sent: list[str] = []
        send_task = celery_app.send_task

        def counted(name, *args, **kwargs):
            sent.append(name)
            return send_task(name, *args, **kwargs)

        monkeypatch.setattr(celery_app, "send_task", counted)
        # every commit that writes notices kicks their task (not once a second per process: the
        # flag filed above may have kicked it a moment ago), so each request below sends one
        monkeypatch.setattr(KICKS, "seconds", 0.0)
        # this process's tasks go to a port that counts and drops connections (the worker still
        # sees the stopped Redis): how often the requests tried the broker, not how long they took
        with CountingListener() as gone, web_broker(gone.url()):
            response = admin.post(
                f"/admin/flags/reviewitem/{item.pk}/change/",
                {
                    "decision": "uphold",
                    "verdict": "full",
                    "proof": "claimed",
                    "quality": "8",
                    "note": "Confirmed while Redis was down.",
                    "version": item.version,
                },
            )
            upheld_tries, upheld_sent = gone.settled_count(), len(sent)
            filed = flag_page.post(
                f"/cells/{cell.pk}/flag/", {"reason": "other", "explanation": EXPLANATION}
            )
            filed_tries, filed_sent = gone.settled_count() - upheld_tries, len(sent) - upheld_sent
        assert response.status_code == 302 and filed.status_code == 302
        # each request tried the broker, at most once for each task it sent: none retried
        assert 1 <= upheld_tries <= upheld_sent and 1 <= filed_tries <= filed_sent, sent
        item.refresh_from_db()
        assert item.status == "upheld"
        assert hatchet_score() == before  # nothing recomputed yet
        assert Arena.objects.get(pk=arena.pk).scores_pending
        worker.wait_for_log("Connection to broker lost")  # the worker met the outage
        broker.start()
        took = wait_until(lambda: converged(arena.pk), 45, "convergence after Redis returned")
        print(f"converged {took:.2f}s after Redis returned")
        assert worker.is_running(), worker.log[-3000:]  # the outage did not kill the worker
        assert "Unrecoverable error" not in worker.log
    after = hatchet_score()
    # the correction raised the verdict: it counts in Hatchet's favour, not against its integrity
    assert after[0] > before[0] and (after[4], after[5]) == (0, 1)


def test_killing_the_worker_holding_the_task_loses_nothing(arena, broker, settings):
    settings.RECOMPUTE_DEBOUNCE_SECONDS = 3  # the worker holds the task this long before running it
    before = hatchet_score()
    env = {**worker_env(broker), "STALE_SWEEP_SECONDS": "8"}  # no sweep before the kill
    with celery_worker(env) as worker:
        cell_correct(cell=hatchet_approval_cell(), value=CellValue(Verdict.FULL, Proof.PROBED, 9))
        # "Task arena.tasks.arena_refresh_scores[…] received", held until due
        worker.wait_for_log(REFRESH_TASK, timeout=15)
        worker.kill()
        # killed while it held the task: nothing has run it
        assert hatchet_score() == before and Arena.objects.get(pk=arena.pk).scores_pending
        worker.start()
        took = wait_until(lambda: converged(arena.pk), 45, "convergence after the worker restarted")
        print(f"converged {took:.2f}s after the worker restarted")
    assert hatchet_score()[0] > before[0]


def test_the_sweep_fans_out_one_refresh_task_per_stale_arena(transactional_db, broker):
    """Three arenas changed while no task could be sent (stale, nothing queued): the worker's beat
    sends the sweep, the sweep sends one refresh task per arena, and each task recomputes one."""
    ids = []
    for _ in range(3):
        cell = CellFactory()
        CellFactory(story__arena=cell.story.arena, product=cell.product, partial=True)
        arena_recompute_scores(arena_id=cell.story.arena_id)
        ids.append(cell.story.arena_id)
    Arena.objects.filter(pk__in=ids).update(change_seq=F("change_seq") + 1)
    with celery_worker(worker_env(broker)) as worker:
        wait_until(lambda: all(converged(i) for i in ids), 30, "the sweep's tasks")
        # each task logs its result just after its recompute committed; a fresh arena recomputes
        # no more, so no fourth can follow
        wait_until(lambda: recomputations(worker) >= 3, 30, "the three tasks' results")
        log = worker.log
    sweep = log.index(
        f": {ids}"
    )  # "Task arena.tasks.arena_refresh_stale[…] succeeded …: [1, 2, 3]"
    assert log.count("'recomputed'") == 3, log[-3000:]
    # the sweep returned the three ids it sent before any of them was recomputed
    assert sweep < log.index("'recomputed'"), log[-3000:]


def test_a_refresh_past_its_soft_time_limit_fails_and_leaves_the_arena_stale(arena, broker):
    """In the worker's default pool (prefork; ``--pool=solo`` ignores time limits) a refresh that
    outlives its soft limit fails: logged, counted, not retried, the arena left stale for the sweep
    with the failure of its change recorded."""
    before = hatchet_score()
    prefork = ("--pool=prefork", "--concurrency=1")
    gave_up = "ran past its time limit; it stays stale"
    redis = broker.client()
    with celery_worker(worker_env(broker), beat=False, extra_args=prefork) as worker:
        # The seed arena takes far longer than 3 ms to recompute, but the limit counts from the
        # pool's hand-over: on a busy machine it can fall before the task (the pool reports it),
        # or in Celery's pre-run hooks (logged there and ignored; the task runs through), and a
        # pool process lost on the way hands its message back. So again, with the arena stale
        # again, until one falls in the task. A try is over once the queue is empty and nothing is
        # held unacknowledged, however it ended.
        for sent in range(1, 8):
            Arena.objects.filter(pk=arena.pk).update(change_seq=F("change_seq") + 1)  # stale
            counted = int(redis.hget("arena:metrics:task_failures", REFRESH_TASK) or 0)
            celery_app.send_task(
                REFRESH_TASK, args=[arena.pk], soft_time_limit=0.003, time_limit=30
            )
            try:
                wait_until(
                    lambda n=sent: (
                        worker.log.count("] received") >= n
                        and redis.hlen("unacked") == redis.llen("celery") == 0
                    ),
                    30,
                    "the task's end",
                )
            except AssertionError as exc:
                raise AssertionError(
                    f"{exc}; the worker's log ends:\n{worker.log[-3000:]}"
                ) from None
            if gave_up in worker.log:
                break
        log = worker.log
    assert log.count(gave_up) == 1, log[-3000:]
    assert "raised unexpected: SoftTimeLimitExceeded" in log, log[-3000:]
    # acknowledged once it returned, and not retried
    assert "] retry: " not in log, log[-3000:]
    failures = int(redis.hget("arena:metrics:task_failures", REFRESH_TASK))
    assert failures == counted + 1, log[-3000:]
    assert not converged(arena.pk) and hatchet_score() == before
    stuck = Arena.objects.get(pk=arena.pk)
    assert (stuck.recompute_failures, stuck.recompute_failed_seq) == (1, stuck.change_seq)
