"""A moderator works the queue in a real browser, at desktop and phone sizes: nothing is
preselected, the cell's rationale and evidence sit beside the flags with each reporter's record,
and upholding with a new rationale shows on the public cell page as rewritten."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from flags.forms import DecisionForm, FlagForm
from flags.models import Reason
from flags.services import flag_submit, review_item_reject
from stories.models import Cell
from stories.values import Verdict
from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP, PHONE, admin_log_in
from web.http.clients import client_hash

pytestmark = pytest.mark.e2e

PASSWORD = "a-long-test-password"
REPORTER = "10.4.4.4"
EXPLANATION = (
    "The 2.4 changelog adds a durable approval step that resumes from a webhook; the reference "
    "documentation shows it with a timeout and an escalation path, so the verdict is outdated."
)
NEW_RATIONALE = "Re-checked against the 2.4 docs: the approval step is built in and resumes."


@pytest.fixture
def flagged(seeded_arena, moderator):
    """A published cell with evidence, flagged by a reporter one of whose earlier flags was
    rejected."""
    cells = (
        Cell.objects.filter(story__arena=seeded_arena, detail_published=True)
        .exclude(verdict__in=[Verdict.NA, Verdict.FULL])
        .filter(evidence__isnull=False)
        .exclude(rationale="")
        .distinct()
        .order_by("pk")
    )
    earlier, cell = cells[0], cells[1]
    data = FlagForm({"reason": Reason.WRONG_VERDICT, "explanation": EXPLANATION})
    past = flag_submit(cell=earlier, form=data, client=client_hash(REPORTER))
    review_item_reject(
        item=past.item, moderator=moderator, form=DecisionForm({"note": "Docs disagree."})
    )
    proposing = FlagForm(
        {
            "reason": Reason.WRONG_VERDICT,
            "explanation": EXPLANATION,
            "proposed_verdict": Verdict.FULL,
            "proposed_quality": 8,
        }
    )
    flag_submit(cell=cell, form=proposing, client=client_hash(REPORTER))
    for i, (other, reason) in enumerate(
        [(cells[2], Reason.WRONG_QUALITY), (cells[3], Reason.OUTDATED_EVIDENCE)]
    ):
        data = FlagForm({"reason": reason, "explanation": EXPLANATION[::-1].capitalize()})
        flag_submit(cell=other, form=data, client=client_hash(f"10.5.5.{i}"))
    return cell


def log_in(open_page, live_server, django_user_model, viewport, dark=False):
    user = django_user_model.objects.filter(username="moderator").first()
    if user is None:
        user = django_user_model.objects.create_superuser("moderator", "m@example.com", PASSWORD)
    page = open_page(viewport=viewport, dark=dark)
    page.goto(f"{live_server.url}/admin/")
    admin_log_in(page, user, PASSWORD)
    return page


@pytest.mark.parametrize(
    "size, viewport, dark",
    [("desktop", DESKTOP, False), ("phone", PHONE, False), ("dark", DESKTOP, True)],
)
def test_a_moderator_reads_the_queue_and_an_item(
    live_server, flagged, open_page, django_user_model, artifacts, size, viewport, dark
):
    page = log_in(open_page, live_server, django_user_model, viewport, dark)
    page.goto(f"{live_server.url}/admin/flags/reviewitem/")
    rows = page.locator("#result_list")
    expect(rows).to_contain_text("Wrong verdict")
    expect(rows).to_contain_text(flagged.story.text)  # whole, wrapped
    expect(rows).to_contain_text("The 2.4 changelog adds a durable approval step")
    page.screenshot(path=str(artifacts / f"moderation-queue-{size}.png"), full_page=True)
    assert violations(page) == []  # (the admin's filter links made 24 px tall by queue.css)

    rows.get_by_role("link", name=flagged.product.name).click()
    for label in ("Uphold: correct the cell", "Reject", "Mark duplicate"):
        expect(page.get_by_label(label)).not_to_be_checked()
    cell_part = page.locator(".review-cell")
    expect(cell_part).to_contain_text(flagged.rationale[:40])
    expect(cell_part.locator(".review-evidence li").first).to_be_visible()
    expect(page.locator(".review-record")).to_contain_text(
        "earlier flags from this client: 0 upheld, 1 rejected"
    )
    page.screenshot(path=str(artifacts / f"moderation-item-{size}.png"), full_page=True)
    assert violations(page) == []

    # resolving without a decision is refused, never an uphold: the browser asks for a choice
    # (the radios are required; the server's message is tested in tests/flags/test_queue.py)
    page.get_by_label("Public note").fill("Read it.")
    url = page.url
    page.get_by_role("button", name="Resolve").click()
    assert page.get_by_label("Reject").evaluate("e => e.validity.valueMissing")
    assert page.url == url
    expect(page.get_by_role("heading", name="Decision")).to_be_visible()
    assert page.problems == []


def test_upholding_with_a_new_rationale_shows_it_rewritten_on_the_cell_page(
    live_server, flagged, open_page, django_user_model, artifacts
):
    page = log_in(open_page, live_server, django_user_model, DESKTOP)
    page.goto(f"{live_server.url}/admin/flags/reviewitem/")
    page.locator("#result_list").get_by_role("link", name=flagged.product.name).click()
    page.get_by_label("Uphold: correct the cell").check()
    page.get_by_label("Rationale (edit to rewrite it with the correction)").fill(NEW_RATIONALE)
    page.get_by_label("Public note").fill("Confirmed in the 2.4 docs.")
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator(".messagelist")).to_contain_text("resolved: uphold")
    assert page.problems == []

    for name, viewport, dark in [
        ("desktop", DESKTOP, False),
        ("phone", PHONE, False),
        ("dark", DESKTOP, True),
    ]:
        proof = open_page(viewport=viewport, dark=dark)
        proof.goto(f"{live_server.url}/cells/{flagged.pk}/")
        main = proof.locator("main")
        expect(main).to_contain_text(NEW_RATIONALE)
        expect(main).to_contain_text("Rewritten with the correction of")
        expect(main).not_to_contain_text(flagged.rationale[:40])
        expect(proof.get_by_role("region", name="Verdict history")).to_contain_text("upheld flag")
        proof.screenshot(
            path=str(artifacts / f"moderation-cell-rewritten-{name}.png"), full_page=True
        )
        assert violations(proof) == [], name
        assert proof.problems == []


def test_upholding_without_a_rationale_marks_it_on_the_cell_page(
    live_server, flagged, open_page, django_user_model, artifacts
):
    page = log_in(open_page, live_server, django_user_model, PHONE)
    page.goto(f"{live_server.url}/admin/flags/reviewitem/")
    page.locator("#result_list").get_by_role("link", name=flagged.product.name).click()
    page.get_by_label("Uphold: correct the cell").check()
    page.get_by_label("Public note").fill("Confirmed in the 2.4 docs.")
    page.get_by_role("button", name="Resolve").click()
    expect(page.locator(".messagelist")).to_contain_text("resolved: uphold")

    for name, viewport, dark in [("phone", PHONE, False), ("dark", DESKTOP, True)]:
        proof = open_page(viewport=viewport, dark=dark)
        proof.goto(f"{live_server.url}/cells/{flagged.pk}/")
        note = proof.locator(".rationale-mark")
        expect(note).to_contain_text("Written before the correction of")
        expect(note).to_contain_text(
            f"it argues for the earlier verdict ({flagged.verdict} → full)"
        )
        proof.screenshot(
            path=str(artifacts / f"moderation-cell-predates-{name}.png"), full_page=True
        )
        assert violations(proof) == [], name
