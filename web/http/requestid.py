"""The request id of log lines, Celery tasks, error reports and X-Request-ID (plain Python:
logging and Celery load it before Django is set up)."""

import logging
import re
from contextvars import ContextVar, Token

HEADER = "X-Request-ID"
# An incoming id is kept only when short and plain: a client cannot write newlines into the logs.
MAX_LENGTH = 64
_SANE = re.compile(rf"[A-Za-z0-9._-]{{1,{MAX_LENGTH}}}")
NONE = "-"  # what a log line outside any request or task says

_current: ContextVar[str | None] = ContextVar("request_id", default=None)


def sane(value: str | None) -> str | None:
    if value and _SANE.fullmatch(value):
        return value
    return None


def current() -> str | None:
    return _current.get()


def bind(value: str | None) -> Token[str | None]:
    return _current.set(value)


def unbind(token: Token[str | None]) -> None:
    _current.reset(token)


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current.get() or NONE
        return True
