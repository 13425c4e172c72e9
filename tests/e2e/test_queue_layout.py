"""The moderators' queue fits a 1280 px screen: every column shows whole (none cut off at the
right), the filters sit in a bar of dropdowns above the list instead of a page-long column (a
product filter over every arena's products opens as a bounded, scrolling panel), and the decision
form is laid out as the admin's own forms (fieldsets, labels beside their inputs, help text).
Screenshots go to /tmp/queue-layout-*.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from flags.forms import FlagForm
from flags.models import Reason
from flags.services import flag_submit
from stories.models import Cell
from stories.values import Verdict
from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP, PHONE, admin_log_in
from tests.factories import ArenaFactory, ProductFactory
from web.http.clients import client_hash

pytestmark = pytest.mark.e2e

PASSWORD = "a-long-test-password"
SHOTS = Path("/tmp")
EXPLANATION = (
    "The reference documentation for the current release describes a durable approval step "
    "that resumes from a webhook, with a timeout and an escalation path; the verdict is outdated."
)


@pytest.fixture
def queue(seeded_arena):
    """Pending items on cells of several products (proposals with a score impact each), and a
    second arena of 40 products: the product filter lists every arena's products."""
    cells = list(
        Cell.objects.filter(story__arena=seeded_arena, detail_published=True)
        .exclude(verdict__in=[Verdict.NA, Verdict.FULL])
        .order_by("product__position", "pk")
    )
    seen: set[int] = set()
    for i, cell in enumerate(
        c for c in cells if not (c.product_id in seen or seen.add(c.product_id))
    ):
        data = FlagForm(
            {
                "reason": Reason.WRONG_VERDICT,
                "explanation": EXPLANATION,
                "proposed_verdict": Verdict.FULL,
                "proposed_quality": 8,
            }
        )
        flag_submit(cell=cell, form=data, client=client_hash(f"10.6.6.{i}"))
    other = ArenaFactory(name="Workflow engines with a long arena name")
    for i in range(40):
        ProductFactory(arena=other, name=f"Orchestrator number {i} with a longish name")
    return seeded_arena


def logged_in(open_page, live_server, django_user_model) -> Page:
    user = django_user_model.objects.create_superuser("moderator", "m@example.com", PASSWORD)
    page = open_page(viewport=DESKTOP)
    page.goto(f"{live_server.url}/admin/flags/reviewitem/")
    admin_log_in(page, user, PASSWORD)
    expect(page.locator("#result_list")).to_be_visible()
    return page


def right_edges(page: Page, selector: str) -> list[float]:
    return page.eval_on_selector_all(
        selector, "els => els.map(e => e.getBoundingClientRect().right)"
    )


def test_every_column_shows_at_1280_px_and_the_filters_take_one_bar(
    live_server, queue, open_page, django_user_model
):
    page = logged_in(open_page, live_server, django_user_model)
    width = DESKTOP["width"]
    headers = page.locator("#result_list thead th")
    assert headers.count() >= 6
    expect(page.locator("#result_list thead")).to_contain_text("Impact of upholding")
    edges = right_edges(page, "#result_list thead th")
    assert max(edges) <= width, edges
    # nothing scrolls sideways: not the page, not the list's own box (where the column was cut)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.eval_on_selector(".results", "e => e.scrollWidth <= e.clientWidth")
    impact_cells = page.locator("#result_list td.field-impact")
    expect(impact_cells.first).to_contain_text("PA")
    assert max(right_edges(page, "#result_list td.field-impact")) <= width

    # every status: one column more
    page.goto(f"{live_server.url}/admin/flags/reviewitem/?status=all")
    expect(page.locator("#result_list thead")).to_contain_text("Status")
    assert max(right_edges(page, "#result_list thead th")) <= width
    assert page.eval_on_selector(".results", "e => e.scrollWidth <= e.clientWidth")
    page.goto(f"{live_server.url}/admin/flags/reviewitem/")

    # the filters: one bar of closed dropdowns above the list, no column beside it
    assert page.locator("#changelist-filter").count() == 0
    bar = page.locator("#queue-filters").bounding_box()
    assert bar is not None and bar["height"] <= 100, bar  # one or two rows
    table = page.locator("#result_list").bounding_box()
    assert table is not None and table["y"] > bar["y"] + bar["height"]
    page.screenshot(path=str(SHOTS / "queue-layout-1280.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollHeight") < 2500
    assert violations(page) == []

    product = page.locator(".queue-filter", has_text="By product")
    product.locator("summary").click()
    panel = product.locator("ul")
    expect(panel).to_be_visible()
    box = panel.bounding_box()
    assert box is not None and box["height"] <= 400 and box["x"] + box["width"] <= width
    assert page.eval_on_selector(".queue-filter[open] ul", "e => e.scrollHeight > e.clientHeight")
    page.screenshot(path=str(SHOTS / "queue-layout-1280-filter-open.png"))
    assert violations(page) == []

    product.get_by_role("link", name="Orchestrator number 3 with a longish name").click()
    summary = page.locator(".queue-filter", has_text="By product").locator("summary")
    expect(summary).to_contain_text("Orchestrator number 3")
    expect(page.locator("#queue-filters")).to_contain_text("Clear all filters")
    assert page.problems == []  # type: ignore[attr-defined]


def test_the_decision_form_is_laid_out_as_the_admins_forms(
    live_server, queue, open_page, django_user_model
):
    page = logged_in(open_page, live_server, django_user_model)
    page.locator("#result_list td.field-cell_link a").first.click()
    form = page.locator("#review-form")
    page.screenshot(path=str(SHOTS / "queue-layout-decision-1280.png"), full_page=True)
    expect(form.locator("fieldset.module.aligned")).to_have_count(2)
    expect(form.get_by_role("heading", name="Decision")).to_be_visible()
    expect(
        form.get_by_role("group", name="Decision:", exact=True)
    ).to_be_visible()  # the radios' fieldset
    # as in the admin's own forms (Django 6: the label above its input): every label and input
    # start at one left edge, each label just above its own input
    lefts = set()
    for label in ("Public note", "Verdict", "Proof", "Quality"):
        field = form.get_by_label(f"{label}:", exact=True)
        name = form.locator(f"label[for='{field.get_attribute('id')}']")
        lb, fb = name.bounding_box(), field.bounding_box()
        assert lb is not None and fb is not None
        assert lb["y"] + lb["height"] <= fb["y"] <= lb["y"] + lb["height"] + 60, label
        lefts |= {round(lb["x"]), round(fb["x"])}
    assert max(lefts) - min(lefts) <= 2, lefts
    note = form.get_by_label("Public note:", exact=True)
    assert note.get_attribute("aria-describedby") == "id_note_helptext"
    expect(page.locator("#id_note_helptext")).to_contain_text("Shown on the cell's history")
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]

    assert violations(page) == []
    assert page.problems == []  # type: ignore[attr-defined]


def test_on_a_phone_an_open_filter_stays_on_the_screen(
    live_server, queue, open_page, django_user_model
):
    user = django_user_model.objects.create_superuser("moderator", "m@example.com", PASSWORD)
    page = open_page(viewport=PHONE)
    page.goto(f"{live_server.url}/admin/flags/reviewitem/")
    admin_log_in(page, user, PASSWORD)
    for title in ("By product", "By age"):
        chosen = page.locator(".queue-filter", has_text=title)
        chosen.locator("summary").click()
        box = chosen.locator("ul").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], title
        page.screenshot(path=str(SHOTS / f"queue-layout-phone-{title[3:]}.png"))
        chosen.locator("summary").click()
    assert violations(page) == []
