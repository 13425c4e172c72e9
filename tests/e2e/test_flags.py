"""A visitor flags a verdict in place; a moderator upholds it in the admin; everyone sees the result."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from arena.models import ProductScore
from stories.models import Cell
from tests.e2e.conftest import admin_log_in

pytestmark = pytest.mark.e2e

ARENA = "durable-execution-engines"
STORY = "A workflow pauses for human approval"
EXPLANATION = (
    "Hatchet's docs now describe durable waits for human approval with event-based resume."
)


@pytest.fixture
def hatchet_cell(seeded_arena):
    return Cell.objects.get(story__text__startswith=STORY, product__slug="hatchet")


def file_flag_inline(page, live_server, cell) -> str:
    """Flag the cell from the Inngest vs Hatchet page (its card's control opens the flag dialog);
    return the private status URL."""
    page.goto(f"{live_server.url}/arenas/{ARENA}/vs/inngest-vs-hatchet/")
    page.evaluate("window.__marker = 'still here'")
    # unfold its category (a whole arena's pair shows its first one), then its round, whose
    # cards load then
    row = page.locator("tr.round").filter(has_text=STORY)
    page.locator("section.h2h-category").filter(has=row).locator("summary.cat-head").click()
    row.locator("summary").click()
    card = page.locator(f"#cell-{cell.pk}")
    control = card.get_by_role("link", name=re.compile("Flag"))
    control.click()
    dialog = page.get_by_role("dialog", name="Flag a verdict")
    form = dialog.locator("form.flag-form")
    expect(form).to_be_visible()
    expect(form.locator(".flag-subject")).to_contain_text(STORY)
    form.get_by_label("Wrong verdict").check()
    form.get_by_label("Proposed verdict (optional)").select_option("full")
    form.get_by_label("Proposed quality 0–10 (optional)").fill("8")
    form.get_by_label("Explanation").fill(EXPLANATION)
    form.get_by_role("button", name="Send flag").click()
    done = dialog.locator(".flag-done")
    expect(done).to_contain_text("pending review")
    assert page.evaluate("window.__marker") == "still here"  # no page reload
    assert page.url.endswith("/vs/inngest-vs-hatchet/")
    return done.get_by_role("link").get_attribute("href")


def test_flag_inline_then_moderate_then_see_the_change(
    live_server, hatchet_cell, open_page, django_user_model, artifacts
):
    visitor = open_page()
    status_url = file_flag_inline(visitor, live_server, hatchet_cell)
    visitor.screenshot(path=str(artifacts / "flag-inline-confirmation.png"))
    visitor.goto(status_url if status_url.startswith("http") else live_server.url + status_url)
    expect(visitor.get_by_role("heading", level=1)).to_contain_text("pending")
    assert visitor.problems == []

    before = ProductScore.objects.get(product__slug="hatchet").pa_score
    moderator = django_user_model.objects.create_superuser(
        "moderator", "mod@example.com", "a-long-test-password"
    )
    mod = open_page()
    mod.goto(f"{live_server.url}/admin/")
    admin_log_in(mod, moderator, "a-long-test-password")
    mod.goto(f"{live_server.url}/admin/flags/reviewitem/")
    expect(mod.locator("#result_list")).to_contain_text("Hatchet PA")
    mod.screenshot(path=str(artifacts / "admin-review-queue.png"), full_page=True)
    mod.locator("#result_list").get_by_role("link", name="Hatchet").click()
    expect(mod.locator(".impact")).to_contain_text("Hatchet PA")
    mod.get_by_label("Uphold: correct the cell").check()
    mod.get_by_label("Public note").fill("Confirmed in the current docs.")
    mod.screenshot(path=str(artifacts / "admin-review-item.png"), full_page=True)
    mod.get_by_role("button", name="Resolve").click()
    expect(mod.locator(".messagelist")).to_contain_text("resolved: uphold")

    assert mod.problems == []  # the admin runs under the CSP without violations
    after = ProductScore.objects.get(product__slug="hatchet").pa_score
    assert after > before
    proof = open_page()
    proof.goto(f"{live_server.url}/cells/{hatchet_cell.pk}/")
    expect(proof.locator("main")).to_contain_text("full")
    expect(proof.locator("main")).to_contain_text("Confirmed in the current docs.")
    proof.screenshot(path=str(artifacts / "cell-after-uphold.png"), full_page=True)
    proof.goto(f"{live_server.url}/arenas/{ARENA}/")
    # Hatchet's own row (by its row header's link), not a row that is too close to call with it
    row = proof.locator("tr").filter(
        has=proof.get_by_role("rowheader").get_by_role("link", name="Hatchet", exact=True)
    )
    expect(row).to_contain_text(f"{after}/100")
    visitor.goto(status_url if status_url.startswith("http") else live_server.url + status_url)
    expect(visitor.get_by_role("heading", level=1)).to_contain_text("upheld")
    expect(visitor.locator("main")).to_contain_text("Confirmed in the current docs.")


def test_flag_without_javascript(live_server, hatchet_cell, open_page):
    page = open_page(js=False)
    page.goto(f"{live_server.url}/cells/{hatchet_cell.pk}/")
    page.get_by_role("link", name=re.compile("Flag this verdict")).first.click()
    assert page.url.endswith(f"/cells/{hatchet_cell.pk}/flag/")
    page.get_by_label("Wrong quality").check()
    page.get_by_label("Explanation").fill("short")
    page.get_by_role("button", name="Send flag").click()
    expect(page.locator("main")).to_contain_text("at least 20 characters")
    page.get_by_label("Wrong quality").check()
    page.get_by_label("Explanation").fill(EXPLANATION)
    page.get_by_role("button", name="Send flag").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("pending")
    assert "/flags/status/" in page.url


def test_flag_from_the_matrix_in_place_with_field_errors(
    live_server, hatchet_cell, open_page, artifacts
):
    page = open_page()
    page.goto(f"{live_server.url}/arenas/{ARENA}/")
    page.evaluate("window.__marker = 'still here'")
    control = page.locator(f'a.flag-mini[href="/cells/{hatchet_cell.pk}/flag/"]')
    expect(control).to_have_attribute("aria-label", re.compile("Flag Hatchet"))
    control.click()
    panel = page.get_by_role("dialog", name="Flag a verdict")
    form = panel.locator("form.flag-form")
    expect(form).to_be_visible()
    form.get_by_label("Missing evidence").check()
    form.get_by_label("Explanation").fill("too short")
    form.get_by_role("button", name="Send flag").click()
    expect(panel).to_contain_text("at least 20 characters")  # the 400 is swapped in place
    panel.get_by_label("Explanation").fill(EXPLANATION)
    panel.get_by_label("Missing evidence").check()
    panel.get_by_role("button", name="Send flag").click()
    expect(panel).to_contain_text("pending review")
    page.screenshot(path=str(artifacts / "flag-from-matrix.png"))
    assert page.evaluate("window.__marker") == "still here"
    assert page.problems == [] or all("400" in p for p in page.problems)
