"""An arena's disputes page in a real Chromium: picking a product or a state swaps the list in
place through htmx with the address following; without JavaScript the same form filters by a plain
GET; the cell page's dispute section is where the list links to."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from flags.forms import FlagForm
from flags.services import flag_submit
from stories.models import Cell
from web.http.clients import client_hash

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PAGE = "/arenas/durable-execution-engines/disputes/"
EXPLANATION = "The docs say this works only on the cloud plan, not self-hosted."


@pytest.fixture
def disputed(seeded_arena) -> dict[str, Cell]:
    cells = {}
    for n, slug in enumerate(("inngest", "temporal")):
        cell = Cell.objects.on_pages().filter(product__slug=slug).order_by("pk").first()
        data = FlagForm({"reason": "wrong_verdict", "explanation": EXPLANATION})
        flag_submit(cell=cell, form=data, client=client_hash(f"10.8.0.{n + 1}"))
        cells[slug] = cell
    return cells


@pytest.mark.parametrize("js", [True, False], ids=["htmx", "no-js"])
def test_filtering_by_product_keeps_the_address_and_follows_to_the_cell(
    live_server, disputed, open_page, artifacts, js
):
    page = open_page(js=js)
    page.goto(live_server.url + PAGE)
    expect(page.locator("#dispute-list .dispute")).to_have_count(2)
    page.select_option("#d-product", "inngest")
    if not js:
        page.get_by_role("button", name="Filter").click()
    # (htmx pushes the canonical address; the plain form sends its empty state too)
    expect(page).to_have_url(
        re.compile(r"\?product=inngest(&state=)?$" if not js else r"\?product=inngest$")
    )
    expect(page.locator("#dispute-list .dispute")).to_have_count(1)
    expect(page.locator("#dispute-list")).to_contain_text("Under review")
    expect(page.locator("#dispute-list")).not_to_contain_text(EXPLANATION)
    page.screenshot(path=artifacts / f"disputes_{'htmx' if js else 'no-js'}.png", full_page=True)
    page.locator("#dispute-list .dispute a").first.click()
    expect(page).to_have_url(re.compile(rf"/cells/{disputed['inngest'].pk}/#disputes$"))
    expect(page.locator("#disputes")).to_contain_text("Wrong verdict")
    assert page.problems == []
