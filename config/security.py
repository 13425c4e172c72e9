"""The staff's sign-in: second factor, session lifetime, the admin's address."""

import os
import re

from django.core.exceptions import ImproperlyConfigured


def _admin_url(value: str) -> str:
    """Path segments ending in a slash, never the root (the public site lives there)."""
    value = value.strip().strip("/")
    if not value or not re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*", value):
        raise ImproperlyConfigured(
            f"ADMIN_URL must be a path like 'admin/' or 'backstage-7f3/', not {value!r}"
        )
    return value + "/"


ADMIN_URL = _admin_url(os.environ.get("ADMIN_URL", "admin/"))

STAFF_SESSION_IDLE_HOURS = float(os.environ.get("STAFF_SESSION_IDLE_HOURS", "8"))
if STAFF_SESSION_IDLE_HOURS <= 0:
    raise ImproperlyConfigured("STAFF_SESSION_IDLE_HOURS must be a positive number of hours")

OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "Arena")
OTP_RECOVERY_CODES = int(os.environ.get("OTP_RECOVERY_CODES", "10"))
# keys, QR codes and recovery codes are shown once, to their owner
OTP_ADMIN_HIDE_SENSITIVE_DATA = True
