"""The request id of logs, tasks, error reports and X-Request-ID (plain Python: read pre-Django)."""

import logging
import re
from contextvars import ContextVar

HEADER = "X-Request-ID"
SANE = re.compile(r"[A-Za-z0-9._-]{1,64}")  # an incoming id kept: no client newlines in the logs
NONE = "-"  # what a log line outside any request or task says
CURRENT: ContextVar[str | None] = ContextVar("request_id", default=None)


def sane(value: str | None) -> str | None:
    return value if value and SANE.fullmatch(value) else None


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = CURRENT.get() or NONE
        return True
