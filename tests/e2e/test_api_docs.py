"""The interactive API reference renders under the site's Content Security Policy."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_swagger_ui_renders_the_api(live_server, seeded_arena, open_page):
    page = open_page()
    page.goto(f"{live_server.url}/api/docs/")
    expect(page.locator(".swagger-ui")).to_contain_text(
        "/api/arenas/{slug}/compare/{a}/{b}/", timeout=15_000
    )
    expect(page.locator(".swagger-ui")).to_contain_text("/api/flags/")
    assert not [p for p in page.problems if "Content Security Policy" in p], page.problems
