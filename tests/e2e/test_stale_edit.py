"""An editor whose admin page went stale while a moderator upheld a flag is told what changed, sees
the current values, and loses neither their own work nor the moderator's."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from flags.forms import DecisionForm, FlagForm
from flags.models import Reason
from flags.services import flag_submit, review_item_uphold
from stories.models import Cell
from stories.values import Verdict
from tests.e2e.conftest import admin_log_in
from web.http.clients import client_hash

pytestmark = pytest.mark.e2e

STORY = "A workflow pauses for human approval"


def test_stale_cell_form_shows_the_conflict_and_the_current_values(
    live_server, seeded_arena, open_page, django_user_model, artifacts
):
    cell = Cell.objects.get(story__text__startswith=STORY, product__slug="hatchet")
    editor = django_user_model.objects.create_superuser(
        "editor", "e@example.com", "a-long-test-password"
    )
    moderator = django_user_model.objects.create_user("mod", password="x")
    moderator.groups.add(Group.objects.get_or_create(name="Moderators")[0])

    page = open_page()
    page.goto(f"{live_server.url}/admin/stories/cell/{cell.pk}/change/")
    admin_log_in(page, editor, "a-long-test-password")
    expect(page.locator("#cell_form")).to_be_visible()
    page.locator("#id_verdict").select_option("partial")
    page.locator("#id_proof").select_option("claimed")
    page.locator("#id_quality").fill("3")

    # meanwhile a moderator upholds a flag on the same cell
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": Reason.WRONG_VERDICT,
                "explanation": "The docs describe a durable approval step with a resume hook.",
                "proposed_verdict": Verdict.FULL,
                "proposed_quality": 8,
            }
        ),
        client=client_hash("10.7.7.7"),
    )
    review_item_uphold(
        item=flag.item, moderator=moderator, form=DecisionForm({"note": "Confirmed in the docs."})
    )

    page.get_by_role("button", name="Save", exact=True).click()
    errors = page.locator(".errornote, .errorlist.nonfield")
    expect(errors.first).to_be_visible()
    expect(page.locator("#cell_form")).to_contain_text("changed by someone else")
    expect(page.locator("#cell_form")).to_contain_text("upheld flag by mod")
    expect(page.locator("#id_verdict")).to_have_value("full")
    expect(page.locator("#id_quality")).to_have_value("8")
    page.screenshot(path=str(artifacts / "admin-stale-cell-conflict.png"), full_page=True)
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("full", 8)

    # the editor, now looking at the current values, applies their change on top of them
    page.locator("#id_quality").fill("7")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("full", 7)
    assert page.problems == []
