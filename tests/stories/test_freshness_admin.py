"""Evidence freshness in the admin: quotes added or edited on a cell are checked on the day of the
edit, and the moderators' "stale evidence" view lists stale cells, heaviest stories first."""

import re
from datetime import date, timedelta

import pytest
from django.test import Client

from stories import freshness
from stories.models import Cell, Evidence
from tests.factories import CellFactory, EvidenceFactory, StoryFactory
from tests.forms import page_form

pytestmark = pytest.mark.django_db

TODAY = date(2026, 11, 30)
STALE_VIEW = "/admin/stories/stalecell/"


@pytest.fixture(autouse=True)
def today(monkeypatch):
    monkeypatch.setattr(freshness, "today", lambda: TODAY)


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.com", "pw")
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def mod_client(moderator):
    c = Client()
    c.force_login(moderator)
    return c


def cell_url(cell) -> str:
    return f"/admin/stories/cell/{cell.pk}/change/"


def test_a_quote_added_in_the_admin_is_checked_today(editor):
    cell = CellFactory(detail_published=True, evidence_as_of=date(2025, 1, 1))
    old = EvidenceFactory(cell=cell, position=0, checked_on=date(2025, 1, 1))
    data = page_form(editor, cell_url(cell), "cell_form")
    data.update(
        {
            "evidence-TOTAL_FORMS": "2",
            "evidence-1-cell": str(cell.pk),
            "evidence-1-id": "",
            "evidence-1-source": "docs",
            "evidence-1-quote": "Approvals resume from a webhook.",
            "evidence-1-url": "https://example.com/docs/approvals",
        }
    )
    response = editor.post(cell_url(cell), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    added = Evidence.objects.get(cell=cell, source="docs")
    assert (added.position, added.checked_on, added.url) == (
        1,
        TODAY,
        "https://example.com/docs/approvals",
    )
    assert Evidence.objects.get(pk=old.pk).checked_on == date(2025, 1, 1)  # untouched
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == TODAY
    # the inline shows the url and the date
    page = editor.get(cell_url(cell)).content.decode()
    assert "Nov. 30, 2026" in page and "https://example.com/docs/approvals" in page


def test_a_quote_edited_in_the_admin_is_checked_today(editor):
    cell = CellFactory(detail_published=True, evidence_as_of=date(2025, 1, 1))
    quote = EvidenceFactory(cell=cell, position=0, checked_on=date(2025, 1, 1))
    data = page_form(editor, cell_url(cell), "cell_form", **{"evidence-0-quote": "Reworded."})
    assert editor.post(cell_url(cell), data).status_code == 302
    quote.refresh_from_db()
    assert (quote.quote, quote.checked_on) == ("Reworded.", TODAY)
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == TODAY


def test_the_stale_view_lists_stale_cells_heaviest_story_first_then_oldest(mod_client):
    old = TODAY - timedelta(days=400)
    older = TODAY - timedelta(days=500)
    light = CellFactory(story=StoryFactory(weight=1), evidence_as_of=older)
    heavy_old = CellFactory(story=StoryFactory(weight=3), evidence_as_of=old)
    heavy_older = CellFactory(story=StoryFactory(weight=3), evidence_as_of=older)
    CellFactory(story=StoryFactory(weight=3), evidence_as_of=TODAY)  # fresh: not listed
    CellFactory(story=StoryFactory(weight=3), na=True, evidence_as_of=older)  # n/a: never stale
    page = mod_client.get(STALE_VIEW)
    assert page.status_code == 200
    html = page.content.decode()
    edit_links = re.findall(r'href="/admin/stories/cell/(\d+)/change/"', html)
    assert [int(pk) for pk in edit_links] == [heavy_older.pk, heavy_old.pk, light.pk]
    assert "500 days ago" in html and "· stale" in html
    # each row names its story, cut to a line, under a "Story" heading
    assert "column-story_text" in html and ">Story</a>" in html


def test_visitors_do_not_see_the_stale_view(client):
    assert client.get(STALE_VIEW).status_code == 302  # to the login page


def test_the_stale_view_reads_as_many_queries_for_6x53_as_for_30x300(
    mod_client, seeded_arena, big_arena, monkeypatch
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    monkeypatch.setattr(freshness, "today", lambda: date(2028, 1, 1))  # every judged cell stale
    counts = []
    for arena in (seeded_arena, big_arena):
        with CaptureQueriesContext(connection) as queries:
            page = mod_client.get(f"{STALE_VIEW}?story__arena__id__exact={arena.pk}")
        assert page.status_code == 200
        assert page.content.decode().count('href="/admin/stories/cell/') == min(
            100, Cell.objects.filter(story__arena=arena).exclude(verdict="n/a").count()
        )
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
