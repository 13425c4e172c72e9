"""``python manage.py send_notices`` — send the mail still due now (what the beat's sweep does;
without a broker, run it from cron), and the moderators' digest with ``--digest``."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from flags import mailing


class Command(BaseCommand):
    help = "Send the flags' mail still due (failed attempts whose backoff has passed, lost tasks)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--digest", action="store_true", help="also send the moderators' digest now"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        counts = mailing.notices_send_due()
        if options["digest"]:
            status = mailing.moderator_digest_send().status
            counts[f"digest {status}"] = 1
        summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        self.stdout.write(summary or "nothing due")
