"""The arena's story matrix in a real Chromium: its six columns fit at 1280 and 1440 px without
clipping, the wheel over it scrolls the page, on a phone each story is a card with every product's
verdict and the page never scrolls sideways; its columns follow "Rank by" and the visitor's
weights, in place; axe finds nothing. Screenshots of it at 375, 768, 1280 and 1440 px, light and
dark, go to ``test-artifacts/``."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.axe import violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARENA = "/arenas/durable-execution-engines/"
PRODUCTS = 6  # the bundled arena's
STORIES = 53

# The table's right edge, its last column head's and the page's widths, in CSS pixels.
EDGES = """() => {
  const table = document.querySelector("#matrix table.story-matrix");
  const heads = table.querySelectorAll("thead th");
  return {
    table: table.getBoundingClientRect().right,
    wrap: table.parentElement.getBoundingClientRect().right,
    last: heads[heads.length - 1].getBoundingClientRect().right,
    page: document.scrollingElement.scrollWidth,
    inner: window.innerWidth,
  };
}"""


def columns(page) -> list[str]:
    """The product names heading the matrix's columns, left to right."""
    return page.locator("#matrix thead th:not(.story-col) > a").all_inner_texts()


def board(page) -> list[str]:
    return page.locator("#leaderboard table.leaderboard tbody .pname").all_inner_texts()


def show_matrix(page, artifacts, name: str) -> None:
    page.locator("#matrix").scroll_into_view_if_needed()
    page.evaluate("document.getElementById('matrix').scrollIntoView()")
    page.screenshot(path=artifacts / f"matrix_{name}.png")


@pytest.mark.parametrize("width", [1280, 1440])
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_six_columns_fit_and_the_wheel_scrolls_the_page(
    live_server, seeded_arena, open_page, artifacts, width, dark
):
    page = open_page(viewport={"width": width, "height": 900}, dark=dark)
    page.goto(live_server.url + ARENA)
    assert len(columns(page)) == PRODUCTS
    edges = page.evaluate(EDGES)
    # no column clipped: the last one ends inside the matrix's box, and that inside the window
    assert edges["last"] <= edges["wrap"] + 0.5 and edges["table"] <= edges["wrap"] + 0.5
    assert edges["wrap"] <= edges["inner"] and edges["page"] <= edges["inner"]
    show_matrix(page, artifacts, f"{width}_{'dark' if dark else 'light'}")
    # the wheel over the matrix scrolls the page itself (no inner box takes it)
    cell = page.locator("#matrix tbody td").nth(8)
    cell.scroll_into_view_if_needed()
    box = cell.bounding_box()
    assert box is not None
    before = page.evaluate("window.scrollY")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 400)
    for _ in range(40):  # (the CSP forbids wait_for_function's string evaluation)
        if page.evaluate("window.scrollY") > before + 200:
            break
        page.wait_for_timeout(50)
    assert page.evaluate("window.scrollY") > before + 200
    assert page.problems == []


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_on_a_phone_each_story_is_a_card_with_every_verdict(
    live_server, seeded_arena, open_page, artifacts, dark
):
    page = open_page(viewport={"width": 375, "height": 812}, dark=dark)
    page.goto(live_server.url + ARENA)
    edges = page.evaluate(EDGES)
    assert edges["page"] <= edges["inner"] == 375  # the page never scrolls sideways
    # each category shows its first two stories' cards, then a link to all of them
    for body in page.locator("#matrix tbody").all():
        stories = body.locator("tr:has(th[scope=row])").count()
        assert body.locator("tr:has(th[scope=row]):visible").count() == min(stories, 2)
        more = body.get_by_role("link", name=re.compile(r"^All \d+ stories of "))
        assert more.count() == (1 if stories > 2 else 0)
    assert page.locator("#matrix tbody tr:has(th[scope=row]):visible").count() < STORIES
    # every card shows each product's name beside its verdict, all inside the window
    cards = page.evaluate(
        """() => [...document.querySelectorAll("#matrix tbody tr:has(th[scope=row])")]
          .filter(tr => tr.offsetParent !== null).map(tr =>
          [...tr.querySelectorAll("td")].map(td => {
            const r = td.getBoundingClientRect();
            return [getComputedStyle(td, "::before").content, td.querySelector("a").innerText,
                    r.left >= 0 && r.right <= innerWidth && r.width > 100];
          }))"""
    )
    names = [f'"{n}"' for n in board(page)]
    for card in cards:
        assert [name for name, _, _ in card] == names
        assert all(re.match(r"[✓~!—] (full|partial|disputed|none) |n/a", v) for _, v, _ in card)
        assert all(inside for _, _, inside in card)
    show_matrix(page, artifacts, f"375_{'dark' if dark else 'light'}")
    assert violations(page) == []
    # the rest of a category: the page with it alone, every story's card
    page.get_by_role("link", name="All 17 stories of Agenticness").click()
    expect(page.locator("#matrix-count")).to_have_text("17/53 stories shown")
    expect(page.locator("#matrix tbody tr:has(th[scope=row]):visible")).to_have_count(17)
    assert page.evaluate(EDGES)["page"] <= 375
    assert page.problems == []


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_a_tablet_shows_the_table_whole(live_server, seeded_arena, open_page, artifacts, dark):
    page = open_page(viewport={"width": 768, "height": 1024}, dark=dark)
    page.goto(live_server.url + ARENA)
    edges = page.evaluate(EDGES)
    assert edges["last"] <= edges["wrap"] + 0.5 and edges["page"] <= edges["inner"]
    show_matrix(page, artifacts, f"768_{'dark' if dark else 'light'}")


def test_columns_follow_the_ranking_and_the_weights(live_server, seeded_arena, open_page):
    page = open_page()
    page.goto(live_server.url + ARENA)
    assert columns(page) == board(page)
    page.evaluate("window.__marker = 1")
    page.get_by_label("Rank by").select_option("persona:backend-developer")
    expect(page.locator("#leaderboard .pname").first).to_have_text("Inngest")
    expect(page.locator("#matrix thead th:not(.story-col) > a").first).to_have_text("Inngest")
    assert columns(page) == board(page)
    # the visitor's weights re-rank the board, and the matrix follows, in place
    page.get_by_text("Your weights").first.click()
    page.get_by_label("Agenticness", exact=True).select_option("critical")
    expect(page.locator("#lb-caption")).to_contain_text("Agenticness ×3")
    mine = board(page)
    expect(page.locator("#matrix thead th:not(.story-col) > a")).to_have_text(mine)
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"
    # the same address opened anew, without JavaScript, has the same order
    nojs = open_page(js=False)
    nojs.goto(page.url)
    assert columns(nojs) == board(nojs) == mine
    assert page.problems == []


def test_marks_and_controls_say_what_they_are(live_server, seeded_arena, open_page):
    page = open_page()
    page.goto(live_server.url + ARENA)
    key = page.locator(".proof-key")
    expect(key).to_contain_text("T probed (tested) · U community (users) · C claimed")
    expect(key).to_contain_text("D contradicted (disproved) · G auth-gated (gated)")
    expect(page.locator("abbr", has_text="PA Score").first).to_have_attribute(
        "title", re.compile("weighted")
    )
    # each flag control names its product and story; each cell's link its product in words
    story = page.locator("#matrix tbody th[scope=row] a").first.inner_text()
    short = story if len(story) <= 60 else story[:60].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    for name in board(page):
        flag = page.get_by_role("link", name=f"Flag {name} on “{short}”", exact=True)
        expect(flag).to_have_count(1)
    first = page.locator("#matrix tbody td a:not(.flag-mini)").first
    assert re.search(
        r": \w[\w.]*, (full|partial|disputed|none), (probed|community|claimed|"
        r"contradicted|auth-gated), \d+/10, ",
        first.text_content() or "",
    )
    # personas by their display name, not their slug
    assert page.locator("#matrix .persona-inline").first.inner_text() in {
        "agent builder",
        "ai-native user",
        "backend developer",
        "platform engineer",
    }
    assert violations(page) == []
    assert page.problems == []
