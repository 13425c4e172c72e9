"""How the suite empties its database: committed arenas with a public record and an audit log are
wiped by a table flush, which PostgreSQL's append-only triggers allow (they refuse the change or
deletion of a row, not a TRUNCATE), while the triggers keep refusing a row's deletion."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from arena.models import Arena
from flags.forms import DecisionForm, FlagForm
from flags.models import Flag, ModeratorAction, ReviewItem
from flags.services import flag_submit, review_item_uphold
from stories.models import Cell, CellChange
from tests.conftest import _arenas_clear
from tests.factories import CellFactory, ModeratorFactory
from web.http.clients import client_hash

APPEND_ONLY = ("stories_cellchange", "flags_moderatoraction")
EXPLANATION = "The linked documentation contradicts this verdict; please look again."


def corrected_cell() -> None:
    """An arena whose cell was corrected through an upheld flag: one change, one audit row."""
    cell = CellFactory.create()
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": "wrong_verdict",
                "explanation": EXPLANATION,
                "proposed_verdict": "partial",
                "proposed_quality": 4,
            }
        ),
        client=client_hash("10.9.9.9"),
    )
    review_item_uphold(
        item=flag.item,
        moderator=ModeratorFactory.create(),
        form=DecisionForm({"note": "Confirmed in the docs."}),
    )
    assert CellChange.objects.count() == 1 and ModeratorAction.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_arena_flush_empties_the_record_and_the_audit_log_and_the_triggers_still_refuse() -> (
    None
):
    corrected_cell()
    if connection.vendor == "postgresql":
        for table in APPEND_ONLY:
            with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute(f"DELETE FROM {table}")
    assert CellChange.objects.count() == 1  # nothing was deleted
    _arenas_clear()
    for model in (Arena, Cell, CellChange, Flag, ModeratorAction, ReviewItem):
        assert not model.objects.exists(), model.__name__
    corrected_cell()  # the database is usable again (and pytest-django's own flush follows)


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL trigger")
def test_the_append_only_triggers_refuse_row_updates_and_deletes_only() -> None:
    """What the flush relies on: each trigger fires for every row updated or deleted, and for no
    TRUNCATE (a statement, not a row)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, pg_get_triggerdef(t.oid) FROM pg_trigger t "
            "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal "
            "AND c.relname = ANY(%s) ORDER BY c.relname",
            [list(APPEND_ONLY)],
        )
        found = cursor.fetchall()
    assert [table for table, _ in found] == sorted(APPEND_ONLY)
    for _, definition in found:
        events = definition.split(" ON ")[0]  # "CREATE TRIGGER name BEFORE DELETE OR UPDATE"
        assert "DELETE" in events and "UPDATE" in events and "TRUNCATE" not in events, definition
        assert "FOR EACH ROW" in definition, definition


@pytest.mark.django_db
def test_the_arena_flush_inside_a_test_is_rolled_back_with_it(seeded_arena: Arena) -> None:
    """The committed seed arena, emptied inside this test after the test wrote (checks of deferred
    foreign keys pending on PostgreSQL), then written to again."""
    corrected_cell()  # written in this test's transaction, not committed
    _arenas_clear()
    assert not Arena.objects.exists() and not CellChange.objects.exists()
    corrected_cell()
