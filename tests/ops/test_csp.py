"""The Content Security Policy allows no inline style or script on the public pages: every page's
header leaves out 'unsafe-inline', and no page carries a style attribute, a <style> block or an inline
<script> that the policy would refuse. The admin
runs under the same policy."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_every_page import REFUSED, public_pages

INLINE_STYLE_ATTR = re.compile(r"<[^>]+\sstyle\s*=", re.IGNORECASE)
STYLE_BLOCK = re.compile(r"<style(?![^>]*\snonce=)[^>]*>", re.IGNORECASE)
# a script element without src= runs inline (JSON data blocks do not run)
INLINE_SCRIPT = re.compile(
    r"<script(?![^>]*\ssrc=)(?![^>]*type=\"application/(?:ld\+)?json\")[^>]*>", re.IGNORECASE
)


def _policy(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.strip() for part in header.split(";") if part.strip()}


@pytest.mark.django_db
def test_no_public_page_allows_or_needs_inline_style_or_script(client, seeded_arena):
    pages = {k: v for k, v in public_pages().items() if not k.startswith("big_")}
    pages |= {"robots": "/robots.txt", "api_docs": "/api/docs/"}
    checked = 0
    for name, url in pages.items():
        response = client.get(url)
        # (the pages that say what is wrong answer with their own status, a 400 or the 404)
        assert response.status_code == (
            404 if name == "not_found" else 400 if name in REFUSED else 200
        ), (name, url)
        policy = _policy(response)
        assert "'unsafe-inline'" not in response["Content-Security-Policy"], name
        assert policy["style-src"].split()[1:] and "'self'" in policy["style-src"], name
        if response["Content-Type"].startswith("text/html"):
            html = response.content.decode()
            assert not INLINE_STYLE_ATTR.search(html), (name, INLINE_STYLE_ATTR.search(html))
            assert not STYLE_BLOCK.search(html), (name, STYLE_BLOCK.search(html))
            assert not INLINE_SCRIPT.search(html), (name, INLINE_SCRIPT.search(html))
            checked += 1
    assert checked >= len(pages) - 1


def test_the_check_fails_on_an_inline_style():
    # the patterns above catch what the policy refuses (so the page test can fail)
    assert INLINE_STYLE_ATTR.search('<div class="bar" style="width: 40%">')
    assert STYLE_BLOCK.search("<style>p { color: red }</style>")
    assert not STYLE_BLOCK.search('<style nonce="abc">p {}</style>')
    assert INLINE_SCRIPT.search("<script>alert(1)</script>")
    assert not INLINE_SCRIPT.search('<script src="/static/js/site.js" defer></script>')


@pytest.mark.django_db
def test_the_admin_needs_no_relaxed_policy(client, moderator, seeded_arena):
    # Django's admin writes no inline style for what moderators open (its one <style> block, a change
    # list without actions, carries the nonce): it runs under the site's policy as it is.
    client.force_login(moderator)
    for url in ("/admin/", "/admin/flags/reviewitem/", "/admin/flags/moderatoraction/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "'unsafe-inline'" not in response["Content-Security-Policy"], url
        html = response.content.decode()
        assert not INLINE_STYLE_ATTR.search(html), url
        assert not STYLE_BLOCK.search(html), url
        assert not INLINE_SCRIPT.search(html), url


@pytest.mark.django_db
def test_only_redoc_relaxes_style_src_and_keeps_its_scripts_ours(client):
    # ReDoc writes <style> elements at run time; its page alone allows them, scripts stay 'self'
    response = client.get("/api/redoc/")
    policy = _policy(response)
    assert "'unsafe-inline'" in policy["style-src"]
    assert "'unsafe-inline'" not in policy["script-src"]
    assert not INLINE_SCRIPT.search(response.content.decode())
