"""The must-have check in a real Chromium, at desktop and phone sizes, without JavaScript: the
arena page links to it, ticking stories and facts and pressing "Check" lands on the shareable
address with every product's answer; axe-core finds nothing and the phone page does not scroll
sideways."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from products.models import Product
from stories.models import Story
from tests.e2e.axe import violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARENA = "/arenas/durable-execution-engines/"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_check_without_script_at_desktop_and_phone_sizes(
    live_server, seeded_arena, open_page, artifacts, size
):
    Product.objects.filter(slug="temporal").update(hosting="both", licence="MIT")
    Product.objects.filter(slug="restate").update(hosting="self-hosted", licence="BUSL-1.1")
    story = Story.objects.filter(arena=seeded_arena).order_by("position").first()
    page = open_page(js=False, viewport=DESKTOP if size == "desktop" else PHONE)
    page.goto(live_server.url + ARENA)
    page.get_by_role("link", name="Must-haves: which products").click()
    page.get_by_label(story.text).check()
    page.get_by_label("self-hosted", exact=True).check()
    page.get_by_label("an open-source licence").check()
    page.get_by_role("button", name="Check").click()
    assert page.url.endswith(f"must-have/?must={story.pk}&need=self-hosted,open-source")
    expect(page.locator("#must-answers-h")).to_contain_text("1 of 6 products meets every must-have")
    expect(page.locator("#must-restate")).to_contain_text("lacks an open-source licence")
    expect(page.locator("#must-dbos")).to_contain_text("nobody stated whether it is self-hosted")
    page.screenshot(path=artifacts / f"must_have_{size}.png", full_page=True)
    shown = page.url
    page = open_page(viewport=DESKTOP if size == "desktop" else PHONE)  # (axe runs as a script)
    page.goto(shown)
    assert violations(page) == []
    if size == "phone":
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page itself scrolls sideways"
