"""The product page's "Embed this badge" as a visitor opens it (desktop, phone, dark, and without
JavaScript): the badge image loads at its drawn size, the snippets are there to copy, axe-core finds
nothing; screenshots of the opened section and of the badge itself."""

from __future__ import annotations

import pytest

from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PRODUCT = "/arenas/durable-execution-engines/products/temporal/"


@pytest.mark.parametrize(
    ("label", "viewport", "dark"),
    [("desktop", DESKTOP, False), ("phone", PHONE, False), ("phone-dark", PHONE, True)],
)
def test_the_embed_section_opens_shows_the_badge_and_passes_axe(
    live_server, seeded_arena, open_page, artifacts, label, viewport, dark
):
    page = open_page(viewport=viewport, dark=dark)
    page.goto(live_server.url + PRODUCT)
    page.locator("header.page-head").screenshot(path=artifacts / f"badge-product-head-{label}.png")
    embed = page.locator("details.embed-badge")
    embed.locator("summary").click()
    assert embed.get_attribute("open") is not None
    image = embed.locator("img")
    image.scroll_into_view_if_needed()
    size = image.evaluate("img => [img.complete, img.naturalWidth, img.naturalHeight]")
    assert size[0] and size[1] > 100 and size[2] == 20, size
    html = embed.locator("#badge-html").input_value()
    assert html.startswith(f'<a href="{live_server.url}{PRODUCT}"><img src="{live_server.url}')
    assert embed.locator("#badge-md").input_value().startswith("[![Temporal in Durable")
    # each snippet shows whole, without scrolling inside it
    for snippet in ("#badge-html", "#badge-md"):
        heights = embed.locator(snippet).evaluate("t => [t.scrollHeight, t.clientHeight]")
        assert heights[0] <= heights[1] + 1, (snippet, heights)
    # the snippet fits the screen: no sideways scroll on a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    embed.screenshot(path=artifacts / f"badge-embed-{label}.png")
    assert violations(page) == []
    assert page.problems == []
    if label == "phone":  # a plain <details>: it opens without JavaScript too
        plain = open_page(viewport=viewport, js=False)
        plain.goto(live_server.url + PRODUCT)
        plain.locator("details.embed-badge summary").click()
        assert plain.locator("#badge-md").is_visible()
    if label == "desktop":
        page.goto(live_server.url + PRODUCT + "badge.svg")
        page.screenshot(
            path=artifacts / "badge.png", clip={"x": 0, "y": 0, "width": 400, "height": 40}
        )
