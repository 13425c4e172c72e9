"""``python manage.py erase_flag_emails`` — what the beat does every hour."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from flags.mailing import flag_emails_erase


class Command(BaseCommand):
    help = "Erase reporters' addresses FLAG_EMAIL_RETENTION_DAYS after the decision on their flag."

    def handle(self, *args: Any, **options: Any) -> None:
        erased = flag_emails_erase()
        days = settings.FLAG_EMAIL_RETENTION_DAYS
        self.stdout.write(f"{erased} address(es) of flags decided over {days} days ago erased")
