"""Settings for the staff's sign-in: second factor, session lifetime, the admin's address."""

import os
import re

from django.core.exceptions import ImproperlyConfigured


def _admin_url(value: str) -> str:
    """The admin's path under the site's root, ``"admin/"`` or ``"backstage-7f3/"``: path segments
    of letters, digits, ``-`` and ``_``, ending in a slash (one is added), never the root itself
    (the public site lives there)."""
    value = value.strip().strip("/")
    if not value or not re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*", value):
        raise ImproperlyConfigured(
            f"ADMIN_URL must be a path like 'admin/' or 'backstage-7f3/', not {value!r}"
        )
    return value + "/"


# The admin's address (config/urls.py mounts it there); a hard-to-guess one keeps scanners off the
# login page. robots.txt names only the default one: an address of its own is not published.
ADMIN_URL = _admin_url(os.environ.get("ADMIN_URL", "admin/"))

# A staff session ends after this many hours without a request, and when the browser closes
# (web.http.staff.StaffSessionMiddleware); visitors' sessions are not touched.
STAFF_SESSION_IDLE_HOURS = float(os.environ.get("STAFF_SESSION_IDLE_HOURS", "8"))
if STAFF_SESSION_IDLE_HOURS <= 0:
    raise ImproperlyConfigured("STAFF_SESSION_IDLE_HOURS must be a positive number of hours")

# The second factor (django-otp): the name authenticator apps show beside the account, and how
# many recovery codes an enrolment or a new set gives.
OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "Arena")
OTP_RECOVERY_CODES = int(os.environ.get("OTP_RECOVERY_CODES", "10"))
# The admin lists staff devices (a superuser deletes a lost phone's) but never shows their keys,
# QR codes or recovery codes: those are shown once, to their owner.
OTP_ADMIN_HIDE_SENSITIVE_DATA = True
