"""An editor writing a cell's rationale in the admin clears the "written before the correction"
mark; the marks show on the cell's admin page but are never typed in."""

import pytest
from django.test import Client
from django.utils import timezone

from stories.models import Cell
from tests.factories import CellFactory
from tests.forms import page_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor(django_user_model):
    c = Client()
    c.force_login(django_user_model.objects.create_superuser("editor", "e@example.com", "pw"))
    return c


@pytest.fixture
def marked():
    return CellFactory(rationale_predates=timezone.now())


def test_an_admin_rationale_edit_clears_the_mark(editor, marked):
    url = f"/admin/stories/cell/{marked.pk}/change/"
    data = page_form(editor, url, "cell_form")
    assert "rationale_predates" not in data  # shown, not editable
    data["rationale"] = "Re-checked against the 2.4 docs: it now pauses for approval."
    assert editor.post(url, data).status_code == 302
    cell = Cell.objects.get(pk=marked.pk)
    assert cell.rationale.startswith("Re-checked") and cell.rationale_predates is None


def test_an_admin_edit_of_the_quality_alone_keeps_the_mark(editor, marked):
    url = f"/admin/stories/cell/{marked.pk}/change/"
    data = page_form(editor, url, "cell_form", quality="7")
    assert editor.post(url, data).status_code == 302
    cell = Cell.objects.get(pk=marked.pk)
    assert cell.quality == 7 and cell.rationale_predates is not None


def test_the_cell_admin_shows_the_marks(editor, marked):
    page = editor.get(f"/admin/stories/cell/{marked.pk}/change/").content.decode()
    assert "The rationale was written before the upheld correction of this date" in page
