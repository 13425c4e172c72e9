"""``python manage.py send_notices [--digest]`` — the beat's sweep (without a broker, cron runs it
every minute). Exits 1, naming each on stderr, when a notice was given up or broke off."""

from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from flags import mailing
from flags.services import flag_clients_prune

PROBLEMS = ("failed", "error")


class Command(BaseCommand):
    help = "Send the flags' mail still due (failed attempts whose backoff has passed, lost tasks)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--digest", action="store_true", help="also send the moderators' digest now"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        flag_clients_prune()
        outcomes = mailing.notices_sweep()
        counts = Counter(outcome.status for outcome in outcomes.values())
        if options["digest"]:
            counts[f"digest {mailing.moderator_digest_send().status}"] = 1
        summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        self.stdout.write(summary or "nothing due")
        lost = {pk: o for pk, o in outcomes.items() if o.status in PROBLEMS}
        for pk, outcome in sorted(lost.items()):
            self.stderr.write(f"notice {pk} {outcome.status}: {outcome.reason}")
        if lost:
            raise CommandError(f"{len(lost)} notice(s) given up or broken off", returncode=1)
