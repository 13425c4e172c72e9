"""Evidence freshness in a real Chromium: stale marks in the matrix, the age and the "stale" badge on
a proof page and on the story page's cards, a product's share of stale cells, and the matrix's
"Stale evidence only" filter (a checkbox: htmx in place, a plain GET without JavaScript). axe-core
finds nothing on each, at desktop and phone sizes, light and dark."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from stories import freshness
from stories.models import Cell
from stories.values import Verdict
from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP, PHONE

pytestmark = pytest.mark.e2e

SEED_AS_OF = date(2026, 9, 16)


def test_the_big_matrix_marks_stale_cells_in_words(live_server, big_arena, open_page, artifacts):
    for tag, size, dark in (("desktop", DESKTOP, False), ("phone-dark", PHONE, True)):
        page = open_page(viewport=size, dark=dark)
        page.goto(f"{live_server.url}/arenas/big/#matrix-section")
        mark = page.locator(".matrix .stale-mark").first
        expect(mark).to_be_visible()
        expect(mark).to_have_text("stale")
        assert "days ago" in mark.get_attribute("title")
        expect(page.get_by_label("Stale evidence only")).not_to_be_checked()
        page.locator("#matrix-section").scroll_into_view_if_needed()
        page.screenshot(path=artifacts / f"freshness_matrix_{tag}.png")
        assert violations(page) == [], tag
        assert page.problems == []


@pytest.mark.parametrize("js", [True, False])
def test_the_matrix_filters_to_stale_stories(live_server, big_arena, open_page, artifacts, js):
    page = open_page(js=js)
    page.goto(f"{live_server.url}/arenas/big/")
    before = page.locator("#matrix-count").inner_text()
    page.get_by_label("Stale evidence only").check()
    if not js:
        page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"[?&]stale=1"))
    expect(page.locator("#matrix-count")).not_to_have_text(before)
    rows = page.locator(".matrix tbody tr:has(td)")
    for i in range(min(rows.count(), 5)):
        expect(rows.nth(i).locator(".stale-mark").first).to_be_visible()
    page.screenshot(path=artifacts / f"freshness_filter_{'js' if js else 'nojs'}.png")
    if js:  # (axe runs in the page: not in one without JavaScript)
        assert violations(page) == []


def test_a_stale_proof_page_and_story_cards_say_how_old(
    live_server, seeded_arena, open_page, artifacts, monkeypatch
):
    today = SEED_AS_OF + timedelta(days=200)
    monkeypatch.setattr(freshness, "today", lambda: today)
    cell = Cell.objects.filter(
        story__arena=seeded_arena, verdict=Verdict.FULL, detail_published=True
    ).first()
    for tag, size, dark in (("desktop", DESKTOP, False), ("phone-dark", PHONE, True)):
        page = open_page(viewport=size, dark=dark)
        page.goto(f"{live_server.url}/cells/{cell.pk}/")
        checked = page.locator("dd.cell-checked")
        expect(checked).to_contain_text("checked 200 days ago (2026-09-16)")
        expect(checked.locator(".stale-badge")).to_have_text("stale")
        expect(checked.locator("time")).to_have_attribute("datetime", "2026-09-16")
        page.screenshot(path=artifacts / f"freshness_cell_{tag}.png")
        assert violations(page) == [], tag
    page = open_page(viewport=PHONE)
    page.goto(f"{live_server.url}/arenas/{seeded_arena.slug}/stories/{cell.story_id}/")
    card = page.locator(f"#cell-{cell.pk}")
    expect(card.locator(".cell-checked")).to_contain_text("checked 200 days ago")
    expect(card.locator(".stale-badge")).to_be_visible()
    page.screenshot(path=artifacts / "freshness_story_phone.png")
    assert violations(page) == []


def test_a_product_page_gives_its_share_of_stale_cells(
    live_server, big_arena, open_page, artifacts
):
    page = open_page(viewport=PHONE)
    page.goto(f"{live_server.url}/arenas/big/products/product-001/")
    share = page.locator("#stale-share")
    # the share is of the product's judged cells: the applicable ones, n/a left out
    judged = (
        Cell.objects.filter(story__arena=big_arena, product__slug="product-001")
        .exclude(verdict=Verdict.NA)
        .count()
    )
    assert 0 < judged <= 300
    expect(share).to_contain_text(f"of {judged} judged cells")
    expect(share).to_contain_text("have evidence older than 180 days")
    expect(share.locator("a")).to_have_attribute(
        "href", "/arenas/big/?stale=1&show=product-001#matrix-section"
    )
    page.screenshot(path=artifacts / "freshness_product_phone.png")
    assert violations(page) == []
