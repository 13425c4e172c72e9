"""Browser tests: Debian's Chromium through Playwright's sync API against pytest-django's
``live_server``. Screenshots go to ``test-artifacts/`` (git-ignored)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, ViewportSize

from tests.factories import totp_code, totp_device
from tests.infra.services import chromium_browser

# Playwright's sync API runs an event loop in this thread; the ORM calls the fixtures make while
# it is open are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Module scope, not session: Playwright's sync API keeps an event loop running in this
    # thread while it is open, and other test modules start their own.
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


HARMLESS = ("Failed to load resource", "htmx:sendAbort, ", "htmx:afterRequest, ")


def _watch(page: Page, problems: list[str]) -> None:
    """Collect console errors (CSP violations among them) and failed requests."""

    def console(message: ConsoleMessage) -> None:
        # failed loads are reported with their URL by the "response" handler below; htmx logs
        # the requests it cancels on purpose (hx-sync replace) as errors too: "htmx:sendAbort"
        # and an "htmx:afterRequest" that always comes with a named error (sendError, timeout...)
        text = message.text
        if message.type == "error" and not text.startswith(HARMLESS):
            problems.append(text)

    page.on("console", console)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on(
        "response",
        lambda r: (
            problems.append(f"{r.status} {r.url}")
            if r.status >= 400 and "/no-such" not in r.url
            else None
        ),
    )


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """``open_page(js=True, viewport=DESKTOP, dark=False)`` → a Playwright page; every page's
    console errors, uncaught exceptions and failed requests end up in ``page.problems``."""
    contexts: list[BrowserContext] = []

    def make(*, js: bool = True, viewport: ViewportSize = DESKTOP, dark: bool = False) -> Page:
        context = browser.new_context(
            java_script_enabled=js,
            viewport=viewport,
            color_scheme="dark" if dark else "light",
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        problems: list[str] = []
        page.problems = problems  # type: ignore[attr-defined]  # the tests read them off the page
        _watch(page, problems)
        return page

    yield make
    for context in contexts:
        context.close()


def admin_log_in(page: Page, user: Any, password: str) -> None:
    """On the admin's login page (where ``page`` is): the password, then the code the user's
    authenticator shows (one is made for them if they have none), as a moderator signs in."""
    totp_device(user)
    page.get_by_label("Username").fill(user.get_username())
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_label("Code").fill(totp_code(user))
    page.get_by_role("button", name="Verify").click()
