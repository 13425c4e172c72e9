"""The staff's second factor (django-otp): an authenticator app (TOTP), counted once confirmed by a
token, and single-use recovery codes (a static device; a new set replaces the old)."""

from __future__ import annotations

from base64 import b32encode
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django_otp import match_token
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

AUTHENTICATOR = "authenticator app"
RECOVERY = "recovery codes"


@dataclass(frozen=True)
class Enrolment:
    """What an authenticator not yet confirmed shows: the otpauth:// URL (as a QR code) and its key."""

    url: str
    key: str  # base32, spaced in fours for typing

    def qr_svg(self) -> str:
        """The URL's QR code as an ``<svg>`` element, without an XML declaration (it sits in HTML)."""
        import qrcode.image.svg

        image = qrcode.make(self.url, image_factory=qrcode.image.svg.SvgPathImage)
        return str(image.to_string(encoding="unicode"))


def staff_totp_start(
    user: AbstractBaseUser, *, confirmed: bool = False, replace: bool = False
) -> Enrolment:
    """The user's unconfirmed authenticator (at most one: a reload or typo shows it again), else a
    new one; ``confirmed`` (a trusted shell) makes a confirmed one; ``replace`` drops all others."""
    with transaction.atomic():
        devices = TOTPDevice.objects.filter(user=user)
        pending = devices.filter(confirmed=False)
        if confirmed or replace or (device := pending.first()) is None:
            (devices if replace else pending).delete()
            device = TOTPDevice.objects.create(user=user, name=AUTHENTICATOR, confirmed=confirmed)
    key = b32encode(device.bin_key).decode()
    spaced = " ".join(key[i : i + 4] for i in range(0, len(key), 4))
    return Enrolment(url=device.config_url, key=spaced)


def staff_totp_confirm(user: AbstractBaseUser, token: str) -> TOTPDevice | None:
    """Confirm the user's unconfirmed authenticator with a token it shows; None when wrong."""
    with transaction.atomic():
        devices = TOTPDevice.objects.select_for_update()
        device = devices.filter(user=user, confirmed=False).first()
        if device is None or not device.verify_token(token.strip()):
            return None
        device.confirmed = True
        device.save(update_fields=["confirmed"])
    return device


def staff_recovery_codes_renew(user: AbstractBaseUser, *, first: bool = False) -> list[str]:
    """A new set of recovery codes; with ``first``, only for a user who has none."""
    with transaction.atomic():
        device, _ = StaticDevice.objects.get_or_create(
            user=user, name=RECOVERY, defaults={"confirmed": True}
        )
        if first and device.token_set.exists():
            return []
        device.token_set.all().delete()
        codes = [StaticToken.random_token() for _ in range(settings.OTP_RECOVERY_CODES)]
        StaticToken.objects.bulk_create(StaticToken(device=device, token=c) for c in codes)
    return codes


def staff_token_verify(user: AbstractBaseUser, token: str) -> object | None:
    """The confirmed device that accepts the token (a recovery code is then used up), or None."""
    token = "".join(token.split()).lower()  # recovery codes are lower case, however typed
    return match_token(user, token) if token else None
