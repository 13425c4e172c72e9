"""``python manage.py enrol_moderator <username> [--replace]`` — a staff user's second factor from
the server's shell: prints an authenticator (URL, key, QR) and new recovery codes, once."""

import io
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from flags.staff import staff_recovery_codes_renew, staff_totp_start


class Command(BaseCommand):
    help = "Give a staff user an authenticator (TOTP) and recovery codes; print them once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="drop the user's existing authenticators (a lost or replaced phone)",
        )
        parser.add_argument("--no-qr", action="store_true", help="print no QR code")

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        user = User.objects.filter(**{User.USERNAME_FIELD: options["username"]}).first()
        if user is None:
            raise CommandError(f"No user named {options['username']!r} (createsuperuser first).")
        if not (user.is_active and user.is_staff):
            raise CommandError(f"{options['username']!r} is not an active staff user.")
        enrolment = staff_totp_start(user, confirmed=True, replace=options["replace"])
        codes = staff_recovery_codes_renew(user)
        out = self.stdout
        out.write(f"Authenticator for {user.get_username()} (add it to an app, e.g. by the QR):")
        out.write(enrolment.url)
        out.write(f"key: {enrolment.key}")
        if not options["no_qr"]:
            out.write(qr_text(enrolment.url))
        out.write("Recovery codes (each works once instead of the app's code; keep them safe):")
        for code in codes:
            out.write(f"  {code}")


def qr_text(data: str) -> str:
    """Dark on light, as scanners expect."""
    import qrcode

    code = qrcode.QRCode(border=2)
    code.add_data(data)
    text = io.StringIO()
    code.print_ascii(out=text, invert=True)
    return text.getvalue()
