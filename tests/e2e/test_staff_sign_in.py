"""A new moderator's first sign-in in a real browser: the password, then enrolment (a QR code and a
key shown once, a code from the app), the recovery codes shown once, and the queue; the next
sign-in asks for the code. Every page is axe clean. Screenshots in /tmp/staff-sign-in-*.png."""

from __future__ import annotations

import re

import pytest
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import expect

from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP
from tests.factories import ModeratorFactory

pytestmark = pytest.mark.e2e

PASSWORD = "a-long-test-password"


def test_a_new_moderator_enrols_then_signs_in_with_a_code(live_server, open_page):
    user = ModeratorFactory.create(username="newmod", password=PASSWORD)
    page = open_page(viewport=DESKTOP)
    page.goto(f"{live_server.url}/admin/flags/reviewitem/")
    page.get_by_label("Username").fill("newmod")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    expect(page.get_by_role("heading", name="Add an authenticator app")).to_be_visible()
    expect(page.get_by_role("img", name=re.compile("QR code"))).to_be_visible()
    page.screenshot(path="/tmp/staff-sign-in-enrol.png", full_page=True)
    assert violations(page) == []
    device = TOTPDevice.objects.get(user=user, confirmed=False)
    key = page.locator(".second-factor-key").inner_text().replace(" ", "")
    assert key and key in device.config_url
    page.get_by_role("textbox", name="Code:").fill(f"{totp(device.bin_key):06d}")
    page.get_by_role("button", name="Add the authenticator").click()

    codes = page.locator(".second-factor-codes li")
    expect(codes).to_have_count(10)
    page.screenshot(path="/tmp/staff-sign-in-recovery-codes.png", full_page=True)
    assert violations(page) == []
    page.get_by_role("link", name="Continue").click()
    expect(page.locator("#result_list, .paginator").first).to_be_visible()
    assert page.url.endswith("/admin/flags/reviewitem/")

    # signed out and in again: the code is asked for
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/admin/")
    page.get_by_label("Username").fill("newmod")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("textbox", name="Code:")).to_be_visible()
    page.screenshot(path="/tmp/staff-sign-in-code.png", full_page=True)
    assert violations(page) == []
    device.refresh_from_db()
    # a new 30-second step's code (the enrolment used this one's)
    page.get_by_role("textbox", name="Code:").fill(
        f"{totp(device.bin_key, drift=device.drift + 1):06d}"
    )
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_role("link", name="Second factor")).to_be_visible()
    assert page.problems == []  # type: ignore[attr-defined]
