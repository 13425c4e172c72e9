"""Every public page (and the API reference, ReDoc's page with its own relaxed style-src) renders in Chromium with no Content Security Policy
violation: the policy has no 'unsafe-inline', so an inline style or script would show up here as a
"Refused to apply inline style" / "Refused to execute inline script" console error."""

from __future__ import annotations

import pytest

from tests.e2e.test_every_page import public_pages

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_no_public_page_has_a_csp_violation(live_server, seeded_arena, open_page):
    page = open_page()
    pages = {k: v for k, v in public_pages().items() if not k.startswith("big_")}
    pages |= {"api_docs": "/api/docs/", "redoc": "/api/redoc/"}
    refused = {}
    for name, url in pages.items():
        page.problems.clear()  # type: ignore[attr-defined]
        response = page.goto(live_server.url + url)
        policy = (response.header_value("content-security-policy") or "") if response else ""
        assert policy and ("'unsafe-inline'" not in policy or name == "redoc"), name
        page.wait_for_load_state("networkidle")
        found = [
            p
            for p in page.problems  # type: ignore[attr-defined]
            if ("Content Security Policy" in p or "Refused to" in p)
            # ReDoc's "API docs by Redocly" logo comes from their CDN: refused, as it should be
            and not (name == "redoc" and "https://cdn.redoc.ly/" in p)
        ]
        if found:
            refused[name] = found
    print(f"CSP: {len(pages)} pages, violations {refused or 0}")
    assert refused == {}
