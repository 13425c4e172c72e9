"""Comparing four products in a real Chromium: the page at desktop and phone sizes, light and
dark (axe-core finds nothing; the story column stays put while the products scroll sideways on a
phone); the product picker swaps the comparison in place through htmx with the address following,
and works as a plain form without JavaScript; "differences only" hides the drawn rounds."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.axe import violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BASE = "/arenas/durable-execution-engines/compare/"
FOUR = BASE + "?products=temporal,inngest,hatchet,dbos"
SIX = BASE + "?products=dbos,restate,trigger-dev,hatchet,inngest,temporal"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def columns(page) -> list[str]:
    return page.locator(".cmp-table thead th").all_inner_texts()[2:]


@pytest.mark.parametrize(
    ("size", "dark"),
    [("desktop", False), ("desktop", True), ("phone", False), ("phone", True)],
    ids=["desktop", "desktop-dark", "phone", "phone-dark"],
)
def test_four_products_side_by_side_and_axe(
    live_server, seeded_arena, open_page, artifacts, size, dark
):
    page = open_page(viewport=DESKTOP if size == "desktop" else PHONE, dark=dark)
    # four products in light, all six in dark
    page.goto(live_server.url + (SIX if dark else FOUR))
    tag = f"{size}{'-dark' if dark else ''}"
    page.screenshot(path=artifacts / f"compare_{tag}.png", full_page=True)
    if dark:
        assert columns(page) == ["DBOS", "Restate", "Trigger.dev", "Hatchet", "Inngest", "Temporal"]
    else:
        assert columns(page) == ["Temporal", "Inngest", "Hatchet", "DBOS"]
    rounds = page.locator(".cmp-table tr.round").count()
    expect(page.locator("#cmp-count")).to_contain_text(f"Showing {rounds} of {rounds} rounds")
    assert violations(page) == []
    # the rounds scroll in their own box: sideways, the story column stays where it was
    box = page.locator(".cmp-scroll")
    box.scroll_into_view_if_needed()
    story = page.locator(".cmp-table tbody th.story-col").first
    before = story.bounding_box()["x"]
    box.evaluate("el => { el.scrollLeft = 400; el.scrollTop = 600; }")
    assert abs(story.bounding_box()["x"] - before) < 1
    header = page.locator(".cmp-table thead th").last
    assert abs(header.bounding_box()["y"] - box.bounding_box()["y"]) < 3  # header stays on top
    page.screenshot(path=artifacts / f"compare_{tag}-scrolled.png")
    if size == "phone":
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page itself scrolls sideways"
    assert page.problems == []


def test_the_picker_and_differences_only_in_place(live_server, seeded_arena, open_page):
    page = open_page()
    page.goto(live_server.url + FOUR)
    page.evaluate("window.__marker = 1")
    page.get_by_label("Hatchet").uncheck()
    page.get_by_label("Restate").check()
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url(re.compile(r"\?products=temporal,inngest,dbos,restate$"))
    expect(page.locator("h1")).to_have_text("Temporal · Inngest · DBOS · Restate")
    assert columns(page) == ["Temporal", "Inngest", "DBOS", "Restate"]
    total = page.locator("tr.round").count()
    drawn = page.locator("tr.round.drawn").count()
    assert drawn > 0
    page.get_by_role("link", name="Differences only").click()
    page.wait_for_url(re.compile(r"&diff=1$"))
    expect(page.locator("tr.round")).to_have_count(total - drawn)
    expect(page.locator("#cmp-count")).to_contain_text(f"{drawn} drawn rounds hidden")
    # one product only: the message in place, the picker still there
    for name in ("Inngest", "DBOS", "Restate"):
        page.get_by_label(name).uncheck()
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_role("alert")).to_have_text("Pick at least 2 products to compare.")
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"
    assert violations(page) == []
    # (the only failed request: that 400, whose message htmx swapped in)
    assert page.problems == [f"400 {live_server.url}{BASE}?products=temporal&diff=1"]


def test_the_picker_without_javascript(live_server, seeded_arena, open_page):
    page = open_page(js=False)
    page.goto(live_server.url + "/arenas/durable-execution-engines/vs/inngest-vs-hatchet/")
    page.get_by_role("link", name="add a product").click()
    page.wait_for_url(re.compile(r"/compare/\?products=inngest,hatchet#compare-picker$"))
    assert columns(page) == ["Inngest", "Hatchet"]
    page.get_by_label("Trigger.dev").check()
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url(re.compile(r"products=inngest&products=hatchet&products=trigger-dev$"))
    assert columns(page) == ["Inngest", "Hatchet", "Trigger.dev"]
    page.get_by_role("link", name="Differences only").click()
    assert page.locator("tr.round.drawn").count() == 0
    assert page.problems == []
