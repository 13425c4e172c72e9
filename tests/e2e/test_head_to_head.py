"""The compact head-to-head in a real Chromium: its first screen shows the tally and the first
rounds of the table at desktop and phone sizes; "differences only" in place (htmx, the URL follows)
and without JavaScript; a round's rationale unfolds, all of them with "Expand all"; unpublished
cells offer no proof link; axe-core finds nothing in any of these states, light and dark."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.axe import violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SEED = "/arenas/durable-execution-engines/vs/inngest-vs-hatchet/"
UNPUBLISHED = "/arenas/durable-execution-engines/vs/temporal-vs-dbos/"
MIXED = "/arenas/durable-execution-engines/vs/temporal-vs-inngest/"
BIG = "/arenas/big/vs/product-001-vs-product-002/"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}


def in_viewport(page, locator) -> bool:
    """Whether the element lies wholly inside the viewport as the page is (no scrolling)."""
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def assert_first_screen(page, rounds: int = 2) -> None:
    """The tally, the first category's heading and tally and the table's first ``rounds`` rounds
    are all on the first screen; nothing scrolls sideways."""
    assert in_viewport(page, page.locator(".h2h-summary .tally"))
    assert in_viewport(page, page.locator(".h2h-summary .weighted"))
    assert in_viewport(page, page.locator("#h2h-count"))
    assert in_viewport(page, page.locator(".cat-tally").first)
    assert in_viewport(page, page.locator(".h2h-table thead").first)
    rows = page.locator(".h2h-table tr.round")
    for i in range(rounds):
        assert in_viewport(page, rows.nth(i)), f"round {i + 1} is below the first screen"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], "the page scrolls sideways"


def height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
def test_seed_head_to_head_first_screen_and_axe(
    live_server, seeded_arena, open_page, artifacts, size, dark
):
    page = open_page(viewport=SIZES[size], dark=dark)
    heights = {}
    for query in ("", "?diff=1", "?open=all"):
        page.goto(live_server.url + SEED + query)
        tag = f"{size}{'-dark' if dark else ''}{query.replace('?', '-').replace('=', '')}"
        page.screenshot(path=artifacts / f"h2h_seed_{tag}.png")
        if query != "?open=all":
            # (the seed's first category has one round that is not drawn)
            assert_first_screen(page, rounds=1 if query else 2)
        heights[query or "default"] = height(page)
        assert violations(page) == [], query
    print(f"seed head-to-head heights, {size}{' dark' if dark else ''}: {heights}")
    assert page.problems == []


@pytest.mark.parametrize("size", SIZES)
def test_big_head_to_head_first_screen_heights_and_axe(
    live_server, big_arena, open_page, artifacts, size
):
    page = open_page(viewport=SIZES[size])
    heights = {}
    # (axe on the default view at every size and scheme: tests/e2e/test_every_page.py)
    for query in ("", "?diff=1"):
        page.goto(live_server.url + BIG + query)
        page.screenshot(path=artifacts / f"h2h_big_{size}{query.replace('?', '-')}.png")
        assert_first_screen(page)
        heights[query or "default"] = height(page)
    print(f"30x300 head-to-head heights, {size}: {heights}")
    # scrolled into the middle of a category (the first: the others are folded), its table's
    # header row stays at the top
    page.evaluate(
        """() => {
            const r = document.querySelector('.h2h-table').getBoundingClientRect();
            window.scrollTo(0, window.scrollY + r.top + r.height / 2);
        }"""
    )
    header_top = page.evaluate(
        """() => {
            const table = [...document.querySelectorAll('.h2h-table')].find(t => {
                const r = t.getBoundingClientRect(); return r.top < 0 && r.bottom > 100; });
            return table.querySelector('thead th:last-child').getBoundingClientRect().top;
        }"""
    )
    assert abs(header_top) < 2
    page.screenshot(path=artifacts / f"h2h_big_{size}-scrolled.png")
    assert page.problems == []
    if size != "desktop":
        return  # (the expanded view's markup is the same at every width)
    dark = open_page(viewport=SIZES[size], dark=True)
    dark.goto(live_server.url + BIG + "?diff=1&open=all")
    dark.screenshot(path=artifacts / f"h2h_big_{size}-dark-diff-open.png")
    assert violations(dark) == []
    assert dark.problems == []


def test_differences_only_in_place_with_htmx(live_server, seeded_arena, open_page, artifacts):
    page = open_page()
    page.goto(live_server.url + SEED)
    total = page.locator("tr.round").count()
    drawn = page.locator("tr.round.draw").count()
    assert drawn > 0
    page.evaluate("window.__marker = 1")
    page.get_by_role("link", name="Differences only").click()
    page.wait_for_url(re.compile(r"\?diff=1$"))
    expect(page.locator("#h2h-count")).to_contain_text(f"of {total} rounds")
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"
    assert page.locator("tr.round").count() == total - drawn
    assert page.locator("tr.round.draw").count() == 0
    count = page.locator("#h2h-count").inner_text()
    assert f"Showing {total - drawn} of {total} rounds" in count
    assert f"{drawn} drawn rounds hidden" in count
    assert violations(page) == []
    # back to every round, in place too
    page.get_by_role("link", name="All rounds").click()
    page.wait_for_url(re.compile(r"/inngest-vs-hatchet/$"))
    expect(page.locator("tr.round")).to_have_count(total)
    # the shared address opens the same view
    other = open_page()
    other.goto(live_server.url + SEED + "?diff=1")
    assert other.locator("tr.round").count() == total - drawn
    assert page.problems == [] and other.problems == []


def test_differences_only_without_javascript(live_server, seeded_arena, open_page):
    page = open_page(js=False)
    page.goto(live_server.url + SEED)
    total = page.locator("tr.round").count()
    page.get_by_role("link", name="Differences only").click()
    page.wait_for_url(re.compile(r"\?diff=1$"))
    shown = page.locator("tr.round").count()
    assert 0 < shown < total and page.locator("tr.round.draw").count() == 0
    # the pair picker keeps the view
    page.get_by_label("Compare", exact=True).select_option("restate")
    page.get_by_role("button", name="Show head-to-head").click()
    page.wait_for_url(re.compile(r"/restate-vs-hatchet/\?diff=1$"))
    assert page.locator("tr.round.draw").count() == 0
    assert page.problems == []


def test_a_round_unfolds_its_rationale_and_evidence(live_server, seeded_arena, open_page):
    for js in (True, False):
        page = open_page(js=js)
        page.goto(live_server.url + SEED)
        row = page.locator("tr.round").filter(has_text="I run LLM agent loops").first
        card = row.locator("article.cell-card").first
        assert not card.is_visible()
        row.locator("summary").click()
        if not js:  # the cards are not in the page: their link opens the page with them
            row.get_by_role("link", name=re.compile("rationale and evidence")).click()
            page.wait_for_url(re.compile(r"\?open=\d+#story-\d+$"))
            row = page.locator("tr.round").filter(has_text="I run LLM agent loops").first
            card = row.locator("article.cell-card").first
        expect(card).to_be_visible()
        assert card.get_by_text("Inngest has dedicated docs for durable agent loops").is_visible()
        assert card.locator(".evidence li").first.is_visible()
        assert card.get_by_role("link", name="proof for Inngest").is_visible()
        assert card.get_by_role("link", name=re.compile("Flag this verdict")).is_visible()
        if js:  # (axe runs as a script in the page)
            assert violations(page) == []
        assert page.problems == []


def test_a_folded_category_opens_with_or_without_javascript(live_server, seeded_arena, open_page):
    for js in (True, False):
        page = open_page(js=js, viewport=PHONE)
        page.goto(live_server.url + SEED)
        folds = page.locator("details.cat-fold")
        assert folds.first.get_attribute("open") is not None
        folded = folds.nth(1)
        assert folded.get_attribute("open") is None
        row = folded.locator("tr.round").first
        assert not row.is_visible()
        folded.locator("summary.cat-head").click()
        expect(row).to_be_visible()
        expect(row.get_by_role("link").first).to_be_visible()  # its story's page
        if js:  # (axe runs as a script in the page)
            assert violations(page) == []
        assert page.problems == []


def test_expand_all_unfolds_every_round(live_server, seeded_arena, open_page, artifacts):
    page = open_page(js=False)
    page.goto(live_server.url + SEED + "?diff=1")
    page.get_by_role("link", name="Expand all").click()
    page.wait_for_url(re.compile(r"\?diff=1&open=all$"))
    rounds = page.locator("tr.round").count()
    assert page.locator("details.why[open]").count() == rounds
    cards = page.locator("article.cell-card")
    assert cards.count() == 2 * rounds
    assert cards.last.is_visible()
    page.get_by_role("link", name="Collapse all").click()
    page.wait_for_url(re.compile(r"\?diff=1$"))
    assert page.locator("details.why[open]").count() == 0
    assert page.problems == []


def test_printing_shows_every_rationale(live_server, seeded_arena, open_page):
    # (the cards load on demand: the expanded view, "Expand all", is the one that holds them all)
    page = open_page()
    page.goto(live_server.url + SEED + "?open=all")
    page.emulate_media(media="print")
    assert page.locator("article.cell-card").first.is_visible()
    assert page.locator("article.cell-card").last.is_visible()


def test_unpublished_rounds_offer_no_proof_link(live_server, seeded_arena, open_page, artifacts):
    page = open_page(viewport=PHONE)
    page.goto(live_server.url + UNPUBLISHED + "?open=all")
    assert page.locator("tr.round").count() > 0
    assert page.locator("article.cell-card").count() == 0
    assert page.get_by_role("link", name=re.compile("proof")).count() == 0
    line = page.locator(".cell-line").first
    expect(line).to_contain_text("rationale not published")
    assert line.get_by_role("link", name=re.compile("Flag this verdict")).is_visible()
    page.screenshot(path=artifacts / "h2h_unpublished_phone-open.png", full_page=False)
    assert violations(page) == []
    # one side published, the other not: a card and a quiet line in one round
    page.goto(live_server.url + MIXED + "?open=all")
    row = page.locator("tr.round").first
    assert row.locator("article.cell-card").count() == 1
    assert row.locator(".cell-line").count() == 1
    assert row.get_by_role("link", name="proof for Temporal").count() == 0
    assert violations(page) == []
    assert page.problems == []


@pytest.mark.parametrize("size", SIZES)
def test_story_page_shows_unpublished_cells_as_quiet_lines(
    live_server, seeded_arena, open_page, artifacts, size
):
    from stories.models import Story

    story = Story.objects.get(text__startswith="I run LLM agent loops")
    page = open_page(viewport=SIZES[size])
    page.goto(f"{live_server.url}/arenas/durable-execution-engines/stories/{story.pk}/")
    quiet = page.locator(".cell-line")
    expect(quiet).to_have_count(2)  # Temporal's and DBOS's details are not published
    expect(quiet.first).to_contain_text("rationale not published")
    assert quiet.first.get_by_role("link", name=re.compile("Flag this verdict")).is_visible()
    assert page.locator("article.cell-card").count() == 4
    page.screenshot(path=artifacts / f"h2h_story_quiet_{size}.png", full_page=True)
    assert violations(page) == []
    assert page.problems == []


def test_flag_dialog_opens_from_an_unfolded_round(live_server, seeded_arena, open_page):
    page = open_page()
    page.goto(live_server.url + SEED)
    row = page.locator("tr.round").filter(has_text="I run LLM agent loops").first
    row.locator("summary").click()
    control = row.get_by_role("link", name=re.compile("Flag this verdict: Hatchet"))
    control.click()
    dialog = page.get_by_role("dialog", name="Flag a verdict")
    expect(dialog.locator("form.flag-form")).to_be_visible()
    expect(dialog).to_contain_text("I run LLM agent loops")
    assert page.url.endswith(SEED)
    assert violations(page) == []
    page.keyboard.press("Escape")
    expect(control).to_be_focused()
    assert violations(page) == []
    assert page.problems == []


def test_a_long_head_to_head_loads_a_rounds_cards_when_it_is_opened(
    live_server, big_arena, open_page, artifacts
):
    page = open_page()
    page.goto(live_server.url + BIG)
    assert page.locator(".cell-card").count() == 0  # 270 rounds: the cards are not in the page
    page.evaluate("window.__marker = 1")
    row = page.locator("tr.round").nth(3)
    row.locator("summary").click()
    expect(row.locator(".cell-card")).to_have_count(2)
    expect(row.locator(".cell-card .rationale").first).to_be_visible()
    assert page.evaluate("window.__marker") == 1  # in place
    assert page.url == live_server.url + BIG  # a view of this page, not a new address
    assert violations(page) == []
    page.screenshot(path=artifacts / "h2h_big_round_opened.png")
    # the printable page holds every card
    page.get_by_role("link", name="Expand all").click()
    page.wait_for_url(re.compile(r"\?open=all$"))
    assert page.locator(".cell-card").count() == 2 * page.locator("tr.round").count()
    assert page.problems == []


def test_without_javascript_a_long_head_to_heads_round_opens_on_its_own_page(
    live_server, big_arena, open_page
):
    page = open_page(js=False)
    page.goto(live_server.url + BIG)
    row = page.locator("tr.round").nth(3)
    row.locator("summary").click()
    row.get_by_role("link", name=re.compile("rationale and evidence")).click()
    page.wait_for_url(re.compile(r"\?open=\d+#story-\d+$"))
    opened = page.locator("tr.round:has(details[open])")
    assert opened.count() == 1
    assert opened.locator(".cell-card").count() == 2
