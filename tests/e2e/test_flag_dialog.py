"""The flag dialog: a ⚑ in the matrix, on a card or a product row opens the flag form in one modal
dialog that names the product, the story and the verdict, takes focus, closes with Escape or Close
and gives focus back to the ⚑."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from stories.models import Cell
from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARENA = "/arenas/durable-execution-engines/"
EXPLANATION = "The docs now describe this feature, with an example of it working end to end."
VIEWPORTS = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]


def focused(page, selector: str) -> bool:
    """Whether focus is on (or inside) the element ``selector`` names."""
    return page.evaluate(
        "s => { const e = document.activeElement; return !!(e && e.closest(s)); }", selector
    )


def focus_moves_to(page, selector: str) -> None:
    """Wait for focus to land on (or inside) ``selector`` (htmx settles a moment after the swap)."""
    page.wait_for_function(
        "s => { const e = document.activeElement; return !!(e && e.closest(s)); }", arg=selector
    )


def is_focused(locator) -> bool:
    return locator.evaluate("el => el === document.activeElement")


def text_around_focus(page) -> str:
    """The text of the open dialog that holds the focus ("" if focus is not in one)."""
    return page.evaluate(
        "() => { const d = document.activeElement.closest('dialog[open]');"
        " return d ? d.textContent.replace(/\\s+/g, ' ') : ''; }"
    )


def duplicate_ids(page) -> list[str]:
    return page.evaluate(
        "() => { const seen = new Set(), dup = [];"
        " document.querySelectorAll('[id]').forEach(e => { seen.has(e.id) ? dup.push(e.id)"
        " : seen.add(e.id); }); return dup; }"
    )


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_flag_from_row_40_of_the_big_matrix(live_server, big_arena, open_page, viewport, artifacts):
    page = open_page(viewport=viewport)
    page.goto(live_server.url + "/arenas/big/")
    page.evaluate("window.__marker = 1")
    # row 40; on a phone, whose matrix shows a category's first two stories' cards, the second
    rows = page.locator("#matrix tbody:not(.collapsed) tr:has(> th[scope=row]):visible")
    row = rows.nth(39 if viewport["width"] > 720 else 1)
    story = squash(row.locator("th[scope=row] a").first.inner_text())
    flag = row.locator("a.flag-mini").first
    flag.scroll_into_view_if_needed()
    flag.click()

    dialog = page.get_by_role("dialog", name="Flag a verdict")
    expect(dialog).to_be_visible()
    assert story in text_around_focus(page)  # focus is in the dialog, which names the story
    assert focused(page, "dialog[open] form.flag-form")
    expect(dialog.locator(".flag-subject .verdict").first).to_be_visible()
    name = page.evaluate(
        "document.activeElement.closest('dialog').getAttribute('aria-describedby')"
    )
    assert story in squash(page.locator(f"#{name}").inner_text())  # the dialog's description

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert is_focused(flag)

    # Again, from the keyboard: no reason given → the errors show in the dialog, focus on the field
    page.keyboard.press("Enter")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Send flag").click()
    expect(dialog.get_by_role("alert").first).to_be_visible()
    focus_moves_to(page, "dialog[open] form.flag-form fieldset")  # the reasons: the first missing
    page.screenshot(path=artifacts / f"flag_dialog_errors_{viewport['width']}.png")

    dialog.get_by_label("Wrong verdict").check()
    dialog.get_by_label("Explanation").fill(EXPLANATION)
    dialog.get_by_role("button", name="Send flag").click()
    done = dialog.locator(".flag-done")
    expect(done).to_contain_text("pending review")
    expect(done.locator("a[href*='/flags/status/']")).to_be_visible()
    focus_moves_to(page, "dialog[open] .flag-done")
    page.screenshot(path=artifacts / f"flag_dialog_sent_{viewport['width']}.png")

    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    assert is_focused(flag)
    assert page.evaluate("window.__marker") == 1  # never reloaded
    assert page.problems == [] or all(" 400 " in f" {p} " for p in page.problems)


def test_flag_from_a_head_to_head_card_and_two_forms_one_after_the_other(
    live_server, seeded_arena, open_page, artifacts
):
    page = open_page()
    page.goto(f"{live_server.url}{ARENA}vs/inngest-vs-hatchet/?open=all")  # rounds unfolded
    first, second = (
        page.locator(".cell-card a.flag-control").nth(0),
        page.locator(".cell-card a.flag-control").nth(3),
    )
    story = squash(
        first.evaluate("a => a.closest('tr.round').querySelector('.story-text > a').textContent")
    )
    first.click()
    dialog = page.get_by_role("dialog", name="Flag a verdict")
    expect(dialog).to_be_visible()
    assert story in text_around_focus(page)
    dialog.get_by_label("Explanation").fill("typed, then closed")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    assert is_focused(first)

    # the same ⚑ again: what was typed is still there
    first.click()
    expect(dialog.get_by_label("Explanation")).to_have_value("typed, then closed")
    page.keyboard.press("Escape")
    assert is_focused(first)

    # another verdict: a new form, with ids of its own; each label focuses its own field
    second.click()
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Explanation")).to_have_value("")
    assert duplicate_ids(page) == []
    dialog.locator("label", has_text="Explanation").click()
    assert focused(page, "dialog[open] textarea[name=explanation]")
    dialog.locator("label", has_text="Source URL").click()
    assert focused(page, "dialog[open] input[name=source_url]")
    assert page.problems == []


def test_two_forms_on_the_cell_page_keep_their_own_ids(
    live_server, seeded_arena, open_page, artifacts
):
    """The cell page's panel opens its form in place; the dialog, opened on the same page, brings
    a second instance: no id is repeated and each label focuses its own form's field."""
    cell = Cell.objects.filter(story__arena=seeded_arena, detail_published=True).first()
    page = open_page()
    page.goto(f"{live_server.url}/cells/{cell.pk}/")
    page.get_by_role("link", name="⚑ Flag this verdict").click()
    panel = page.locator("#flag-panel form.flag-form")
    expect(panel).to_be_visible()
    focus_moves_to(page, "#flag-panel form.flag-form")
    # a card's ⚑ for the same verdict, as the story page has one (the cell page has none)
    page.evaluate(
        "pk => { const a = document.createElement('a'); a.className = 'flag-control';"
        " a.href = `/cells/${pk}/flag/`; a.textContent = '⚑ flag'; a.id = 'extra';"
        " document.querySelector('main').append(a); }",
        cell.pk,
    )
    page.locator("#extra").click()
    dialog = page.get_by_role("dialog", name="Flag a verdict")
    expect(dialog.locator("form.flag-form")).to_be_visible()
    assert duplicate_ids(page) == []
    dialog.locator("label", has_text="Explanation").click()
    assert focused(page, "dialog[open] textarea[name=explanation]")
    page.keyboard.press("Escape")
    page.locator("#flag-panel label", has_text="Explanation").click()
    assert focused(page, "#flag-panel textarea[name=explanation]")
    page.locator("#flag-panel").screenshot(path=artifacts / "flag_cell_panel.png")


@pytest.mark.parametrize(
    "viewport, dark",
    [
        pytest.param(DESKTOP, False, id="desktop"),
        pytest.param(PHONE, False, id="phone"),
        pytest.param(DESKTOP, True, id="dark"),
        pytest.param(PHONE, True, id="phone-dark"),
    ],
)
def test_axe_finds_nothing_with_the_dialog_open(
    live_server, seeded_arena, open_page, viewport, dark, artifacts
):
    page = open_page(viewport=viewport, dark=dark)
    page.goto(live_server.url + ARENA)
    assert violations(page) == []
    flag = page.locator("a.flag-mini").nth(5)
    flag.click()
    dialog = page.get_by_role("dialog", name="Flag a verdict")
    expect(dialog).to_be_visible()
    assert violations(page) == []
    tag = f"{'phone' if viewport is PHONE else 'desktop'}{'_dark' if dark else ''}"
    page.screenshot(path=artifacts / f"flag_dialog_{tag}.png")
    dialog.get_by_role("button", name="Send flag").click()
    expect(dialog.get_by_role("alert").first).to_be_visible()
    assert violations(page) == []
    page.keyboard.press("Escape")
    assert is_focused(flag)


@pytest.mark.parametrize(
    "viewport, dark",
    [
        pytest.param(DESKTOP, False, id="desktop"),
        pytest.param(PHONE, False, id="phone"),
        pytest.param(DESKTOP, True, id="dark"),
    ],
)
def test_axe_finds_nothing_on_the_big_arena(
    live_server, big_arena, open_page, viewport, dark, artifacts
):
    page = open_page(viewport=viewport, dark=dark)
    page.goto(live_server.url + "/arenas/big/")
    assert violations(page) == []
    tag = f"{'phone' if viewport is PHONE else 'desktop'}{'_dark' if dark else ''}"
    page.locator("#matrix").scroll_into_view_if_needed()
    page.screenshot(path=artifacts / f"big_arena_flags_{tag}.png")


@pytest.mark.parametrize(
    "path",
    [
        ARENA,
        f"{ARENA}vs/inngest-vs-hatchet/",
        f"{ARENA}products/hatchet/",
        "story page",
        "flag page",
        "cell page",
    ],
)
def test_axe_finds_nothing_on_pages_with_flag_controls(live_server, seeded_arena, open_page, path):
    cell = Cell.objects.filter(story__arena=seeded_arena, detail_published=True).first()
    path = {
        "story page": f"{ARENA}stories/{cell.story_id}/",
        "flag page": f"/cells/{cell.pk}/flag/",
        "cell page": f"/cells/{cell.pk}/",
    }.get(path, path)
    page = open_page()
    page.goto(live_server.url + path)
    assert violations(page) == []
    if path.startswith(f"{ARENA}stories/"):  # a card's ⚑ opens the dialog here too
        page.locator(".cell-card a.flag-control").first.click()
        expect(page.get_by_role("dialog", name="Flag a verdict")).to_be_visible()
        assert cell.story.text in text_around_focus(page)
        assert violations(page) == []
    elif path == f"/cells/{cell.pk}/":  # the panel's form, in place
        page.get_by_role("link", name="⚑ Flag this verdict").click()
        focus_moves_to(page, "#flag-panel form.flag-form")
        assert violations(page) == []


def test_without_javascript_the_flag_is_a_link_to_the_flag_page(
    live_server, seeded_arena, open_page
):
    page = open_page(js=False)
    page.goto(f"{live_server.url}{ARENA}vs/inngest-vs-hatchet/")
    # a whole arena's round unfolds to a link to the page with its cards, without JavaScript
    page.locator("tr.round summary").first.click()
    page.get_by_role("link", name=re.compile("rationale and evidence")).first.click()
    page.wait_for_url(re.compile(r"\?open=\d+#story-\d+$"))
    control = page.locator(".cell-card a.flag-control").first
    href = control.get_attribute("href")
    control.click()
    assert page.url.endswith(href)
    subject = page.locator(".flag-subject")
    expect(subject).to_contain_text("on “")
    expect(subject).to_contain_text("current verdict")
