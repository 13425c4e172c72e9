"""A new visitor's browse through the site in a real Chromium: home → arena → re-rank → filter →
head-to-head → proof page, with htmx (no full reload) and again with JavaScript off."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARENA = "/arenas/durable-execution-engines/"


def leaderboard_names(page) -> list[str]:
    return page.locator("#leaderboard table.leaderboard tbody .pname").all_inner_texts()


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def assert_not_reloaded(page) -> None:
    assert page.evaluate("window.__marker") == 1, "the page was reloaded"


def test_browse_with_htmx(live_server, seeded_arena, open_page, artifacts):
    page = open_page()
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Durable Execution Engines").click()
    page.wait_for_url(re.compile(re.escape(ARENA) + "$"))
    assert page.title().startswith("Durable Execution Engines")
    assert leaderboard_names(page)[0] == "Temporal"
    page.evaluate("window.__marker = 1")

    # Re-rank in place: only the leaderboard is swapped, the URL says how it is ranked.
    page.get_by_label("Rank by").select_option("persona:backend-developer")
    expect(page.locator("#leaderboard .pname").first).to_have_text("Inngest")
    assert_not_reloaded(page)
    assert query(page) == {"rank": ["persona:backend-developer"]}
    assert leaderboard_names(page)[:2] == ["Inngest", "Temporal"]

    # Filter the matrix by persona, then by text: the count and the URL follow.
    count = page.locator("#matrix-count")
    page.get_by_label("Persona", exact=True).select_option("backend-developer")
    expect(page.locator("#matrix-count")).to_contain_text("13/53")
    assert_not_reloaded(page)
    assert query(page) == {"rank": ["persona:backend-developer"], "persona": ["backend-developer"]}
    assert page.locator("#matrix th[scope=row].story-col").count() == 13
    page.get_by_label("Persona", exact=True).select_option("")
    expect(page.locator("#matrix-count")).to_contain_text("53/53")
    page.get_by_label("Story text").fill("retries")
    expect(page.locator("#matrix-count")).to_contain_text("2/53")
    assert count.inner_text() == "2/53 stories shown"
    assert_not_reloaded(page)
    assert query(page) == {"rank": ["persona:backend-developer"], "q": ["retries"]}
    # the leaderboard kept its order while the matrix changed
    assert leaderboard_names(page)[0] == "Inngest"
    page.screenshot(path=artifacts / "flow_arena_filtered.png")

    # The shared URL opens the same view.
    shared = page.url
    other = open_page()
    other.goto(shared)
    assert other.locator("#matrix-count").inner_text() == "2/53 stories shown"
    assert other.get_by_label("Rank by").input_value() == "persona:backend-developer"
    assert other.get_by_label("Story text").input_value() == "retries"

    # Back goes to the previous state of the page: typing replaced the entry it started from
    # (one entry per search, not one per pause), so Back returns to the persona filter.
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"q="))
    expect(page).to_have_url(re.compile(r"persona=backend-developer"))
    expect(page.locator("#matrix-count")).to_contain_text("13/53")

    # A head-to-head from the leaderboard, then another pair from its picker, in place.
    page.goto(live_server.url + ARENA)
    page.locator("#leaderboard tbody tr").first.locator("a.vs").click()
    page.wait_for_url(re.compile(r"/vs/temporal-vs-[a-z-]+/$"))
    assert page.get_by_role("heading", level=1).inner_text().startswith("Temporal vs ")
    page.evaluate("window.__marker = 1")
    page.get_by_label("Compare", exact=True).select_option("inngest")
    page.get_by_label("with", exact=True).select_option("hatchet")
    page.get_by_role("button", name="Show head-to-head").click()
    page.wait_for_url(re.compile(r"/vs/inngest-vs-hatchet/$"))
    expect(page.locator("h1")).to_have_text("Inngest vs Hatchet")
    assert_not_reloaded(page)
    assert page.title().startswith("Inngest vs Hatchet")
    agent_loops = page.locator("tr.round").filter(has_text="I run LLM agent loops")
    expect(agent_loops.locator(".h-win")).to_have_text("◀ Inngest wins")
    agent_loops.locator("summary").click()  # its rationale and evidence load and unfold
    expect(agent_loops.get_by_role("link", name=re.compile("Flag this verdict"))).to_have_count(2)

    # A proof page from the head-to-head.
    page.get_by_role("link", name="proof for Inngest").first.click()
    page.wait_for_url(re.compile(r"/cells/\d+/$"))
    assert page.get_by_role("heading", name="Verdict history").is_visible()
    assert page.get_by_role("heading", name="Evidence").is_visible()
    assert page.locator("#flag-panel").is_visible()
    assert page.problems == []


def hold_answers(page, wanted) -> tuple[list, dict]:
    """Hold back the htmx requests ``wanted(request)`` picks until the test lets them go, as a slow
    network would; ``ended`` records each held request once it is answered or cancelled."""
    held: list = []
    ended: dict = {}

    def route(r) -> None:
        if wanted(r.request):
            held.append(r)
        else:
            r.continue_()

    page.route(re.compile(re.escape(ARENA) + r"\?"), route)
    page.on("requestfinished", lambda request: ended.setdefault(request, "answered"))
    page.on("requestfailed", lambda request: ended.setdefault(request, "cancelled"))
    return held, ended


def let_go(page, held: list, ended: dict) -> None:
    """Release the held requests and wait until each one has been answered or cancelled and
    htmx has settled whatever came back."""
    for route in held:
        try:
            route.continue_()
        except PlaywrightError:  # the page cancelled it while it was held
            pass
    for route in held:
        for _ in range(100):
            if route.request in ended:
                break
            page.wait_for_timeout(50)
        assert route.request in ended, "a held request never ended"
    page.wait_for_function("() => !document.querySelector('.htmx-request')")


def test_a_slow_answer_to_an_older_choice_never_lands_over_a_newer_one(
    live_server, seeded_arena, open_page
):
    """Choices made faster than the server answers: the page ends on the last one, whatever
    order the answers arrive in."""
    page = open_page()
    page.goto(live_server.url + ARENA)

    # The matrix: re-ranking refreshes its columns; the reader filters by persona before that
    # refresh (which knows nothing of the persona) comes back.
    def stale_matrix(request) -> bool:
        return request.headers.get("hx-target") == "matrix" and "persona=" not in request.url

    held, ended = hold_answers(page, stale_matrix)
    with page.expect_request(stale_matrix):
        page.get_by_label("Rank by").select_option("persona:backend-developer")
    page.get_by_label("Persona", exact=True).select_option("backend-developer")
    expect(page.locator("#matrix-count")).to_contain_text("13/53")
    let_go(page, held, ended)
    assert page.locator("#matrix-count").inner_text() == "13/53 stories shown"
    assert page.locator("#matrix th[scope=row].story-col").count() == 13
    assert query(page) == {"rank": ["persona:backend-developer"], "persona": ["backend-developer"]}
    page.unroute_all()

    # The leaderboard: the reader changes their mind while the first ranking is on its way.
    def first_ranking(request) -> bool:
        return request.headers.get("hx-target") == "leaderboard" and "rank=category" in request.url

    held, ended = hold_answers(page, first_ranking)
    with page.expect_request(first_ranking):
        page.get_by_label("Rank by").select_option("category:Agent workloads")
    page.get_by_label("Rank by").select_option("pa")
    expect(page.locator("#leaderboard .pname").first).to_have_text("Temporal")
    let_go(page, held, ended)
    assert leaderboard_names(page)[0] == "Temporal"
    assert page.get_by_label("Rank by").input_value() == "pa"
    assert query(page) == {"persona": ["backend-developer"]}  # the default ranking goes unsaid
    assert page.problems == []  # type: ignore[attr-defined]


def test_matrix_cell_opens_its_proof_page(live_server, seeded_arena, open_page):
    page = open_page()
    page.goto(live_server.url + ARENA)
    cell = page.locator("#matrix td a").first
    label = cell.inner_text().split(":")[0]  # (what is shown; the words follow)
    # the verdict, its kind of proof and quality, then what backs it (a mark; then for screen
    # readers the product and all of it in words)
    backing = r"(❝\s*|¶\s*|∅\s*)"
    words = r"(quotes with sources|a rationale only|no published evidence)"
    assert re.fullmatch(
        rf"([✓~!—] (full|partial|disputed|none) [TUCDG]? ?\d+/10|n/a) {backing}", label
    ), label
    name = cell.text_content() or ""
    assert re.search(rf": [\w.]+, (full|partial|disputed|none|not applicable)[^:]*, {words}$", name)
    cell.click()
    page.wait_for_url(re.compile(r"/cells/\d+/$"))
    # every Temporal cell's detail is unpublished, and the page says so
    assert page.get_by_text("are not published").is_visible()
    assert page.problems == []


def test_browse_without_javascript(live_server, seeded_arena, open_page):
    page = open_page(js=False)
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Durable Execution Engines").click()
    page.wait_for_url(re.compile(re.escape(ARENA) + "$"))

    page.get_by_label("Rank by").select_option("verified")
    page.get_by_role("button", name="Rank").click()
    page.wait_for_url(re.compile(r"rank=verified"))
    assert leaderboard_names(page)[0] == "DBOS"

    page.get_by_label("Persona", exact=True).select_option("backend-developer")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"persona=backend-developer"))
    assert page.locator("#matrix-count").inner_text() == "13/53 stories shown"
    assert leaderboard_names(page)[0] == "DBOS"  # the ranking was carried along

    page.get_by_label("Story text").fill("deploy")
    page.get_by_label("Story text").press("Enter")
    page.wait_for_url(re.compile(r"q=deploy"))
    assert query(page)["persona"] == ["backend-developer"]
    assert query(page)["rank"] == ["verified"]
    expected = page.locator("#matrix th[scope=row].story-col").count()
    assert page.locator("#matrix-count").inner_text() == f"{expected}/53 stories shown"

    page.locator("#leaderboard tbody tr").first.locator("a.vs").click()
    page.wait_for_url(re.compile(r"/vs/dbos-vs-[a-z-]+/$"))
    page.get_by_label("Compare", exact=True).select_option("restate")
    page.get_by_label("with", exact=True).select_option("trigger-dev")
    page.get_by_role("button", name="Show head-to-head").click()
    page.wait_for_url(re.compile(r"/vs/restate-vs-trigger-dev/$"))
    assert page.get_by_role("heading", level=1).inner_text() == "Restate vs Trigger.dev"
    page.locator("tr.round summary").first.click()
    # (a whole arena's pair: the round's link opens the page with its cards)
    page.get_by_role("link", name=re.compile("rationale and evidence")).first.click()
    page.wait_for_url(re.compile(r"\?open=\d+#story-\d+$"))
    page.get_by_role("link", name="proof for Restate").first.click()
    page.wait_for_url(re.compile(r"/cells/\d+/$"))
    assert page.get_by_role("heading", name="Verdict history").is_visible()
    assert page.problems == []


def test_keyboard_focus_is_visible_and_skip_link_works(live_server, seeded_arena, open_page):
    page = open_page()
    page.goto(live_server.url + ARENA)
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused == "Skip to content"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    assert page.locator(".skip-link").bounding_box()["y"] >= 0
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"


def test_unknown_pages_show_the_404_page(live_server, seeded_arena, open_page):
    page = open_page()
    response = page.goto(live_server.url + ARENA + "vs/temporal-vs-no-such-product/")
    assert response.status == 404
    assert page.get_by_role("heading", name="Page not found").is_visible()


SCREENSHOT_PAGES = [
    ("home", "/"),
    ("arena", ARENA),
    ("arena_matrix", ARENA + "?persona=backend-developer#matrix-section"),
    ("head_to_head", ARENA + "vs/inngest-vs-hatchet/"),
    ("head_to_head_unpublished", ARENA + "vs/temporal-vs-dbos/"),
    ("product", ARENA + "products/inngest/"),
    ("story", None),
    ("cell", None),
    ("methodology", "/methodology/"),
    ("not_found", "/arenas/no-such-arena/"),
    ("big_arena", "/arenas/big/#matrix-section"),
]


def test_screenshots_of_every_page(live_server, seeded_arena, big_arena, open_page, artifacts):
    from stories.models import Cell, Story

    story = Story.objects.get(text__startswith="I run LLM agent loops")
    cell = Cell.objects.get(story=story, product__slug="inngest")
    urls = {"story": f"{ARENA}stories/{story.pk}/", "cell": f"/cells/{cell.pk}/"}
    for viewport, label, dark in (
        (DESKTOP, "desktop", False),
        (PHONE, "phone", False),
        (PHONE, "phone-dark", True),
    ):
        page = open_page(viewport=viewport, dark=dark)
        for name, url in SCREENSHOT_PAGES:
            if dark and name not in ("arena", "arena_matrix", "head_to_head", "cell"):
                continue
            page.goto(live_server.url + (url or urls[name]))
            page.screenshot(path=artifacts / f"{name}_{label}.png")
            # nothing but the tables scrolls sideways on a phone
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, (name, label, overflow)
        assert page.problems == [], page.problems


def test_matrix_is_a_card_per_story_on_a_phone_without_sideways_scroll(
    live_server, big_arena, open_page, artifacts
):
    page = open_page(viewport=PHONE)
    page.goto(live_server.url + "/arenas/big/#matrix-section")
    story = page.locator("#matrix th[scope=row].story-col").first
    card = story.locator("xpath=..")
    box = card.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # every product shown has its verdict in the card, inside the window
    for cell in card.locator("td").all():
        inside = cell.bounding_box()
        assert inside is not None and inside["x"] + inside["width"] <= PHONE["width"]
    assert card.locator("td").count() == 8
    assert (
        page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        <= 1
    )  # the page never scrolls sideways
    page.screenshot(path=artifacts / "big_arena_matrix_scrolled_phone.png")


# Rules axe may break on these pages: none (the matrix's ⚑ are 24 px targets since the flag dialog).
KNOWN = ()


def test_big_matrix_loads_categories_on_demand_and_shows_the_products_picked(
    live_server, big_arena, open_page, artifacts
):
    page = open_page()
    page.goto(live_server.url + "/arenas/big/#matrix-section")
    page.evaluate("window.__marker = 1")
    cells = page.locator("#matrix tr:not(.mx-more-link) td a:not(.flag-mini)")
    assert cells.count() == 50 * 8  # the top 8 products, the first category's 50 stories
    assert page.locator("#matrix tbody.collapsed").count() == 5
    assert violations(page, ignore=KNOWN) == []

    # A collapsed category's rows come in place; focus lands on its first story.
    load = page.locator("a.cat-load").first
    name = load.locator(".visually-hidden").inner_text().strip().removeprefix("of ")
    load.click()
    expect(page.locator("#matrix tbody.collapsed")).to_have_count(4)
    assert cells.count() == 2 * 50 * 8
    assert (
        page.evaluate(
            "document.activeElement.closest('tbody').querySelector('[role=heading]').textContent"
        )
        == name
    )
    assert_not_reloaded(page)
    assert urlparse(page.url).query == ""

    # Pick two products: the matrix shows them, the URL says so in one value.
    page.get_by_text("Products shown: 8 of 30").click()
    boxes = page.locator("#matrix-products input[type=checkbox]")
    for i in range(boxes.count()):
        boxes.nth(i).set_checked(i in (0, 1))
    page.get_by_role("button", name="Show these products").click()
    expect(page.locator("#matrix-products summary")).to_have_text("Products shown: 2 of 30")
    assert query(page) == {"show": ["product-001,product-002"]}
    page.get_by_label("Persona", exact=True).select_option("ai-native")
    expect(page.locator("#matrix-count")).to_contain_text("75/300")
    assert query(page) == {"show": ["product-001,product-002"], "persona": ["ai-native"]}
    heads = page.locator("#matrix .col-head").first.locator("th a").all_inner_texts()
    assert heads == ["Product 001", "Product 002"]
    assert_not_reloaded(page)
    assert violations(page, ignore=KNOWN) == []
    page.screenshot(path=artifacts / "big_arena_products_picked.png")

    # Re-ranking with the default pick changes which products the matrix shows.
    page.goto(live_server.url + "/arenas/big/")
    before = page.locator("#matrix .col-head").first.inner_text()
    page.get_by_label("Rank by").select_option("verified")
    expect(page.locator("#matrix .col-head").first).not_to_have_text(before)
    expect(page).to_have_url(re.compile(r"\?rank=verified$"))
    assert page.problems == []


def test_big_matrix_without_javascript(live_server, big_arena, open_page):
    page = open_page(js=False)
    page.goto(live_server.url + "/arenas/big/")
    page.locator("a.cat-load").nth(1).click()
    page.wait_for_url(re.compile(r"category="))
    assert page.locator("#matrix-count").inner_text() == "50/300 stories shown"
    assert page.locator("#matrix tbody.collapsed").count() == 0
    page.get_by_text("Products shown: 8 of 30").click()
    page.locator("#matrix-products input[value=product-005]").check()
    page.get_by_role("button", name="Show these products").click()
    page.wait_for_url(re.compile(r"show="))
    assert query(page)["category"] and "product-005" in query(page)["show"]
    assert page.locator("#matrix-products summary").inner_text() == "Products shown: 9 of 30"
    assert page.problems == []
