"""The per-client lock of flag filing: a row per client (``FlagClient``), upserted in the filing
transaction and locked by it until the commit; the rows of clients quiet for longer than the rate
window are pruned by the notices' sweep (the beat's task, ``send_notices``)."""

from __future__ import annotations

import io
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from flags import tasks
from flags.forms import FlagForm
from flags.models import FlagClient, Reason
from flags.services import FlagThrottled, client_lock, flag_clients_prune, flag_submit
from tests.factories import CellFactory

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


def file(client: str) -> None:
    data = FlagForm({"reason": Reason.OTHER, "explanation": EXPLANATION})
    flag_submit(cell=CellFactory.create(), form=data, client=client)


@pytest.mark.django_db
def test_a_client_has_one_row_seen_at_its_last_flag():
    file("client-a")
    first = FlagClient.objects.get().last_seen
    file("client-a")
    file("client-b")
    rows = dict(FlagClient.objects.values_list("client_hash", "last_seen"))
    assert set(rows) == {"client-a", "client-b"} and rows["client-a"] > first


@pytest.mark.django_db
@pytest.mark.parametrize("sweep", ["task", "command", "function"])
def test_clients_quiet_for_longer_than_the_rate_window_are_pruned(settings, sweep):
    settings.FLAG_RATE = "10/hour"
    now = timezone.now()
    for name, age in [("old", 61), ("edge", 59), ("new", 0)]:
        FlagClient.objects.create(client_hash=name, last_seen=now - timedelta(minutes=age))
    if sweep == "task":
        tasks.notices_send_due()
    elif sweep == "command":
        call_command("send_notices", stdout=io.StringIO())
    else:
        assert flag_clients_prune() == 1
    assert sorted(FlagClient.objects.values_list("client_hash", flat=True)) == ["edge", "new"]


@pytest.mark.django_db
def test_a_pruned_client_flags_again_with_its_limit_intact(settings):
    settings.FLAG_RATE = "2/hour"
    file("client-a")
    file("client-a")
    FlagClient.objects.all().delete()
    # its flags still count: the row is only the lock
    with pytest.raises(FlagThrottled):
        file("client-a")


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite locks the whole database")
def test_the_clients_row_stays_locked_until_the_filing_transaction_ends():
    """A second connection cannot take the row while the first holds it (NOWAIT fails at once),
    and can once the first has committed."""
    FlagClient.objects.create(client_hash="client-a", last_seen=timezone.now())
    locked, release = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():
                client_lock("client-a", timezone.now())
                locked.set()
                release.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert locked.wait(30)
        with pytest.raises(DatabaseError), transaction.atomic():
            FlagClient.objects.select_for_update(nowait=True).get(client_hash="client-a")
    finally:
        release.set()
        thread.join(30)
    with transaction.atomic():
        FlagClient.objects.select_for_update(nowait=True).get(client_hash="client-a")
