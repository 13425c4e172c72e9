"""A cell's admin page with a long history: the latest changes, newest first, a link to all of
them, and the same few queries whatever the history holds."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stories.admin import CellChangeInline
from tests.factories import CellChangeFactory, CellFactory

pytestmark = pytest.mark.django_db

SHOWN = CellChangeInline.shown


@pytest.fixture
def editor(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    return client


def cell_with_changes(n: int, by):  # type: ignore[no-untyped-def]
    cell = CellFactory()
    notes = [f"change number {i}" for i in range(n)]
    for i, note in enumerate(notes):
        CellChangeFactory(
            cell=cell,
            changed_by=by,
            note=note,
            changed_at=f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z",
        )
    return cell, notes


def page(client, cell) -> tuple[int, str]:
    url = f"/admin/stories/cell/{cell.pk}/change/"
    client.get(url)  # (the session's first request writes it)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries), response.content.decode()


def test_the_cell_admin_reads_as_many_queries_whatever_the_history(editor, django_user_model):
    user = django_user_model.objects.get(username="root")
    few, _ = page(editor, cell_with_changes(2, user)[0])
    many, html = page(editor, cell_with_changes(SHOWN * 3, user)[0])
    assert many == few, (few, many)
    assert len(html) < 200_000


def test_the_cell_admin_shows_the_latest_changes_and_links_all_of_them(editor, django_user_model):
    user = django_user_model.objects.get(username="root")
    cell, notes = cell_with_changes(SHOWN + 5, user)
    _, html = page(editor, cell)
    shown = re.findall(r"change number (\d+)", html)
    assert shown == [str(i) for i in range(SHOWN + 4, 4, -1)]  # the newest first
    link = f'href="/admin/stories/cellchange/?cell__id__exact={cell.pk}"'
    assert f"{SHOWN + 5} changes, the latest {SHOWN} below" in html and link in html
    everything = editor.get(f"/admin/stories/cellchange/?cell__id__exact={cell.pk}")
    assert everything.status_code == 200
    listed = set(re.findall(r"change number (\d+)", everything.content.decode()))
    assert listed == {str(i) for i in range(SHOWN + 5)}
    other, _ = cell_with_changes(1, user)
    assert (
        "change number"
        not in editor.get(f"/admin/stories/cell/{CellFactory().pk}/change/").content.decode()
    )
    assert "1 change, the latest 1 below" in page(editor, other)[1]
