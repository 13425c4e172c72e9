"""The staff's sign-in: a password and a second factor (an authenticator app's code or a recovery
code), enrolment in the admin and by command, django-axes counting wrong codes, staff sessions that
end when idle, and the admin at its own address (ADMIN_URL)."""

from __future__ import annotations

import importlib
import io
import re
import time

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import SESSION_KEY
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import clear_url_caches, reverse
from django_otp.oath import totp
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

import config.urls
from config.admin_site import LAST_SEEN
from config.settings import admin_url
from tests.factories import ModeratorFactory, totp_code, totp_device

pytestmark = pytest.mark.django_db

PASSWORD = "pw"
QUEUE = "/admin/flags/reviewitem/"
STEP = "/admin/second-factor/"
ENROL = "/admin/second-factor/enrol/"


@pytest.fixture
def mod():
    return ModeratorFactory.create(username="mod")


def password_login(client: Client, username: str = "mod", password: str = PASSWORD):
    return client.post(
        f"/admin/login/?next={QUEUE}",
        {"username": username, "password": password, "next": QUEUE},
    )


def code_of(device: TOTPDevice) -> str:
    return f"{totp(device.bin_key, device.step, device.t0, device.digits, device.drift):06d}"


def test_a_password_alone_does_not_open_the_admin(client, mod):
    totp_device(mod)
    response = password_login(client)
    assert response.status_code == 302  # the password was right...
    queue = client.get(QUEUE)
    assert queue.status_code == 302 and queue["Location"].startswith("/admin/login/")
    # ...and the login page sends the signed-in user on to the second step, keeping "next"
    login = client.get(queue["Location"])
    assert (
        login.status_code == 302 and login["Location"] == f"{STEP}?next={QUEUE.replace('/', '%2F')}"
    )
    page = client.get(login["Location"])
    assert page.status_code == 200 and "authenticator app" in page.content.decode()
    assert client.get("/admin/").status_code == 302


def test_a_password_and_the_authenticators_code_open_the_admin(client, mod):
    password_login(client)
    response = client.post(STEP, {"token": totp_code(mod), "next": QUEUE})
    assert response.status_code == 302 and response["Location"] == QUEUE
    assert client.get(QUEUE).status_code == 200


def test_a_wrong_code_is_refused_and_counted_as_a_failed_login(client, mod, settings):
    totp_device(mod)
    password_login(client)
    wrong = client.post(STEP, {"token": "000000", "next": QUEUE})
    assert wrong.status_code == 200 and "not valid" in wrong.content.decode()
    assert client.get(QUEUE).status_code == 302
    assert AccessAttempt.objects.get(username="mod").failures_since_start == 1
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        last = client.post(STEP, {"token": "000000", "next": QUEUE})
    assert last.status_code == 429  # locked out, as after as many wrong passwords
    # the right code does not help now: the half-signed-in session is gone too
    assert client.post(STEP, {"token": totp_code(mod)}).status_code == 429
    assert SESSION_KEY not in client.session
    assert password_login(client).status_code == 429


def test_a_recovery_code_works_once(client, mod):
    out = io.StringIO()
    call_command("enrol_moderator", "mod", "--no-qr", stdout=out)
    code = re.findall(r"^  (\w+)$", out.getvalue(), re.M)[0]
    password_login(client)
    assert client.post(STEP, {"token": code.upper(), "next": QUEUE})["Location"] == QUEUE
    assert client.get(QUEUE).status_code == 200
    again = Client()
    password_login(again)
    refused = again.post(STEP, {"token": code, "next": QUEUE})
    assert refused.status_code == 200 and "not valid" in refused.content.decode()
    assert again.get(QUEUE).status_code == 302


def test_the_enrol_command_prints_the_authenticator_and_ten_recovery_codes(mod):
    out = io.StringIO()
    call_command("enrol_moderator", "mod", stdout=out)
    text = out.getvalue()
    url = re.search(r"^otpauth://totp/Arena%3Amod\?secret=(\w+)&.*issuer=Arena$", text, re.M)
    assert url is not None
    codes = re.findall(r"^  (\w+)$", text, re.M)
    assert len(codes) == 10 == StaticToken.objects.filter(device__user=mod).count()
    assert "█" in text or "▀" in text  # the QR code, drawn in characters
    device = TOTPDevice.objects.get(user=mod)
    assert device.confirmed and url.group(1) in text
    # a second run without --replace adds no second authenticator... with it, the old one goes
    call_command("enrol_moderator", "mod", "--replace", "--no-qr", stdout=io.StringIO())
    assert list(TOTPDevice.objects.filter(user=mod)) != [device]
    assert TOTPDevice.objects.filter(user=mod).count() == 1


@pytest.mark.parametrize("who", ["nobody", "visitor"])
def test_the_enrol_command_refuses_a_user_who_is_not_staff(who):
    ModeratorFactory.create(username="visitor", is_staff=False)
    with pytest.raises(CommandError):
        call_command("enrol_moderator", who, stdout=io.StringIO())


def test_staff_without_a_device_enrol_in_the_admin_and_get_recovery_codes_once(client, mod):
    password_login(client)
    step = client.get(f"{STEP}?next={QUEUE}")
    assert step.status_code == 302 and step["Location"].startswith(ENROL)
    page = client.get(step["Location"])
    html = page.content.decode()
    assert page.status_code == 200 and "<svg" in html and 'name="token"' in html
    device = TOTPDevice.objects.get(user=mod, confirmed=False)
    mistyped = client.post(ENROL, {"device": device.pk, "token": "000000", "next": QUEUE})
    assert "not valid" in mistyped.content.decode()
    assert client.get(QUEUE).status_code == 302
    # (a wrong code makes the device wait a second before it checks the next: django-otp's throttle)
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_timestamp=None)
    done = client.post(ENROL, {"device": device.pk, "token": code_of(device), "next": QUEUE})
    codes = re.findall(r"<li><code>(\w+)</code></li>", done.content.decode())
    assert len(codes) == 10 and TOTPDevice.objects.get(pk=device.pk).confirmed
    assert client.get(QUEUE).status_code == 200
    # the recovery codes are shown once: a new set replaces them
    assert "<code>" not in client.get("/admin/second-factor/recovery-codes/").content.decode()
    renewed = client.post("/admin/second-factor/recovery-codes/").content.decode()
    new = re.findall(r"<li><code>(\w+)</code></li>", renewed)
    assert len(new) == 10 and not set(new) & set(codes)


def test_a_password_alone_cannot_enrol_a_new_device_for_someone_who_has_one(client, mod):
    totp_device(mod)
    password_login(client)
    response = client.get(ENROL)
    assert response.status_code == 302 and response["Location"].startswith(STEP)
    assert TOTPDevice.objects.filter(user=mod).count() == 1


def test_a_password_alone_does_not_open_the_moderators_api(client, mod):
    totp_device(mod)
    password_login(client)
    assert client.get("/api/flags/").status_code == 403
    client.post(STEP, {"token": totp_code(mod)})
    assert client.get("/api/flags/").status_code == 200


def test_a_staff_session_ends_at_browser_close_and_after_the_idle_hours(client, mod, settings):
    before = time.time()
    client.force_login(mod)
    assert client.get(QUEUE).status_code == 200
    after = time.time()
    session = client.session
    assert session.get_expire_at_browser_close()
    assert before <= session[LAST_SEEN] <= after  # seen during this sign-in
    session[LAST_SEEN] = time.time() - settings.STAFF_SESSION_IDLE_HOURS * 3600 + 120
    session.save()
    assert client.get(QUEUE).status_code == 200  # idle, but not long enough
    session = client.session
    session[LAST_SEEN] = time.time() - settings.STAFF_SESSION_IDLE_HOURS * 3600 - 1
    session.save()
    expired = client.get(QUEUE)
    assert expired.status_code == 302 and expired["Location"].startswith("/admin/login/")
    assert SESSION_KEY not in client.session


def test_the_admin_pages_are_never_indexed(client):
    assert client.get("/admin/login/")["X-Robots-Tag"] == "noindex, nofollow"


@pytest.fixture
def backstage(settings):
    """The admin at ADMIN_URL=backstage-7f3/ (the root URLs read it once, when imported)."""
    settings.ADMIN_URL = "backstage-7f3/"
    importlib.reload(config.urls)
    clear_url_caches()
    yield "/backstage-7f3/"
    settings.ADMIN_URL = "admin/"
    importlib.reload(config.urls)
    clear_url_caches()


def test_the_admin_lives_at_admin_url_and_robots_txt_does_not_name_it(client, mod, backstage):
    assert reverse("admin:index") == backstage
    assert reverse("admin:flags_reviewitem_changelist") == f"{backstage}flags/reviewitem/"
    assert client.get("/admin/login/").status_code == 404
    client.force_login(mod)
    queue = client.get(f"{backstage}flags/reviewitem/")
    assert queue.status_code == 200 and queue["X-Robots-Tag"] == "noindex, nofollow"
    robots = client.get("/robots.txt").content.decode()
    assert "backstage" not in robots and "/admin/" not in robots


def test_robots_txt_names_the_admin_at_its_default_address(client):
    assert "Disallow: /admin/\n" in client.get("/robots.txt").content.decode()


@pytest.mark.parametrize(
    "value, path", [("admin", "admin/"), ("/backstage-7f3/", "backstage-7f3/"), ("a/b/", "a/b/")]
)
def test_admin_url_is_a_path_under_the_root(value, path):
    assert admin_url(value) == path


@pytest.mark.parametrize("value", ["", "/", "../x/", "a b/", "a//b/", "http://x/"])
def test_admin_url_refuses_the_root_and_odd_paths(value):
    with pytest.raises(ImproperlyConfigured):
        admin_url(value)


@pytest.mark.parametrize("path", [STEP, ENROL, "/admin/second-factor/recovery-codes/"])
def test_the_second_factor_pages_need_a_signed_in_staff_user(client, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_a_verified_session_going_back_to_the_second_step_is_sent_on(client, mod):
    client.force_login(mod)
    response = client.get(f"{STEP}?next={QUEUE}")
    assert response.status_code == 302
    assert client.get(response["Location"]).status_code == 302  # the login page: to the index
    assert client.get(QUEUE).status_code == 200


def test_an_offsite_next_is_not_followed(client, mod):
    password_login(client)
    response = client.post(STEP, {"token": totp_code(mod), "next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == "/admin/"


def test_wrong_codes_at_enrolment_lock_out_as_wrong_passwords_do(client, mod, settings):
    password_login(client)
    client.get(ENROL)
    device = TOTPDevice.objects.get(user=mod, confirmed=False)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        last = client.post(ENROL, {"device": device.pk, "token": "000000"})
    assert last.status_code == 429
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_timestamp=None)
    assert client.post(ENROL, {"device": device.pk, "token": code_of(device)}).status_code == 429
    assert not TOTPDevice.objects.get(pk=device.pk).confirmed
    assert SESSION_KEY not in client.session


def test_the_admin_lists_devices_but_never_their_keys_or_codes(client, mod, django_user_model):
    device = totp_device(mod)
    out = io.StringIO()
    call_command("enrol_moderator", "mod", "--no-qr", stdout=out)
    code = re.findall(r"^  (\w+)$", out.getvalue(), re.M)[0]
    root = django_user_model.objects.create_superuser("root", "r@example.com", "pw")
    client.force_login(root)
    listing = client.get("/admin/otp_totp/totpdevice/").content.decode()
    assert "test authenticator" in listing
    page = client.get(f"/admin/otp_totp/totpdevice/{device.pk}/change/")
    assert page.status_code == 200 and device.key not in page.content.decode()
    assert client.get(f"/admin/otp_totp/totpdevice/{device.pk}/config/").status_code in (403, 404)
    static = client.get("/admin/otp_static/staticdevice/").content.decode()
    statics = [
        client.get(f"/admin/otp_static/staticdevice/{pk}/change/").content.decode()
        for pk in re.findall(r"/admin/otp_static/staticdevice/(\d+)/change/", static)
    ]
    assert statics and not any(code in html for html in statics)
