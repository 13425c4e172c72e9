"""A visitor's own weights in a real Chromium: "Privacy posture" critical and "Agenticness"
ignored re-rank the leaderboard in place and put the weights in the address; that address opened
without JavaScript shows the same order; the page with weights set passes axe on a desktop, a
phone and in the dark."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.e2e.axe import violations
from tests.e2e.conftest import PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SEED = "/arenas/durable-execution-engines/"
MINE = "agenticness:0,privacy-posture:3"


def names(page) -> list[str]:
    return page.locator("#leaderboard table.leaderboard tbody .pname").all_inner_texts()


def test_weights_re_rank_in_place_and_the_address_shares_them(
    live_server, seeded_arena, open_page, artifacts
):
    page = open_page()
    page.goto(live_server.url + SEED + "?persona=backend-developer")
    published = names(page)
    page.evaluate("window.__marker = 1")
    page.get_by_text("Your weights").first.click()  # the panel's summary opens it
    page.get_by_label("Privacy posture", exact=True).select_option("critical")
    expect(page.locator("#lb-caption")).to_contain_text("Privacy posture ×3")
    # by keyboard: Home picks "ignore"; focus stays on the menu when the panel follows the board
    page.get_by_label("Agenticness", exact=True).focus()
    page.keyboard.press("Home")
    expect(page.locator("#lb-caption")).to_contain_text(
        "Ranked by your weights: Agenticness ignored, Privacy posture ×3"
    )
    expect(page).to_have_url(re.compile(re.escape(f"weights={MINE}")))
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"
    mine = names(page)
    assert mine != published and sorted(mine) == sorted(published)
    # the matrix filter was kept; "Rank by" says whose ranking it is; focus stayed on the control
    assert parse_qs(urlparse(page.url).query) == {
        "persona": ["backend-developer"],
        "weights": [MINE],
    }
    assert page.locator("#rank-by option:checked").inner_text() == "Your weights"
    assert page.evaluate("document.activeElement.id") == "w-agenticness"
    row = page.locator("#leaderboard tbody tr").filter(has_text="DBOS")
    expect(row.locator(".moved")).to_have_text("▼1down 1 from published rank 2")
    # the matrix's filters carry the weights along
    page.get_by_label("Persona", exact=True).select_option("")
    expect(page.locator("#matrix-count")).to_contain_text("53/53")
    assert parse_qs(urlparse(page.url).query) == {"weights": [MINE]}
    assert names(page) == mine
    page.locator("#leaderboard-section").screenshot(path=artifacts / "weights_set.png")
    page.locator("#best-section").screenshot(path=artifacts / "weights_best.png")
    assert violations(page) == []

    # the same address without JavaScript: the same order, the panel open with its levels
    shared = page.url
    nojs = open_page(js=False)
    nojs.goto(shared)
    assert names(nojs) == mine
    assert nojs.get_by_label("Privacy posture", exact=True).input_value() == "3"
    # its plain form: "Apply" goes to the shareable address
    nojs.get_by_label("Privacy posture", exact=True).select_option("normal")
    nojs.get_by_role("button", name="Apply").click()
    nojs.wait_for_url(re.compile(r"weights=agenticness:0#leaderboard-section$"))
    assert "Agenticness ignored" in nojs.locator("#lb-caption").inner_text()

    # a preset, then "Reset" (in place): back to the published ranking and address
    page.get_by_role("link", name="Rank as a backend-developer would").click()
    expect(page.locator("#lb-caption")).to_contain_text("backend-developer ×3")
    expect(page).to_have_url(re.compile(r"\?weights=backend-developer:3$"))
    assert page.get_by_label("Privacy posture", exact=True).input_value() == "1"
    assert page.get_by_label("backend-developer", exact=True).input_value() == "3"
    page.locator("#lb-caption").get_by_role("link", name="Reset").click()
    expect(page.locator("#lb-caption")).to_contain_text("Ranked by PA Score")
    assert names(page) == published
    expect(page).to_have_url(re.compile(re.escape(SEED) + "$"))
    assert page.problems == [] and nojs.problems == []


@pytest.mark.parametrize(
    ("label", "viewport", "dark"), [("phone", PHONE, False), ("dark", None, True)]
)
def test_the_page_with_weights_is_clean_on_a_phone_and_in_the_dark(
    live_server, seeded_arena, open_page, artifacts, label, viewport, dark
):
    page = open_page(**({"viewport": viewport} if viewport else {}), dark=dark)
    page.goto(f"{live_server.url}{SEED}?weights={MINE}")
    assert violations(page) == []
    page.locator("#leaderboard-section").screenshot(path=artifacts / f"weights_{label}.png")
    assert page.problems == []
