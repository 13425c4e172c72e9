"""A REAL SMTP server for tests: aiosmtpd's Controller on a free loopback port, in a thread of the
test process, keeping every message it accepts.

    with smtp_server() as smtp:          # SmtpServer: .port .messages .stop() .start() .wait_for(n)
        settings.MAILERS = smtp.mailers()
        ...
        smtp.stop()                       # connections are refused now; .start() on the same port

The messages are parsed (``email.message.EmailMessage``), with the envelope's recipients.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from tests.infra.services import free_port, port_is_open, wait_for

__all__ = ["Received", "SmtpServer", "smtp_server"]


@dataclass(frozen=True)
class Received:
    recipients: list[str]  # the envelope's (RCPT TO)
    message: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def body(self) -> str:
        part = self.message.get_body(("plain",))
        return part.get_content() if part is not None else ""


class _Recorder:
    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.server._received(Received(list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(self, port: int | None = None) -> None:
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.messages: list[Received] = []
        self._lock = threading.Lock()
        self._controller: Controller | None = None

    def _received(self, received: Received) -> None:
        with self._lock:
            self.messages.append(received)

    def mailers(self, timeout: float = 2) -> dict[str, dict[str, object]]:
        """The MAILERS setting that sends here over SMTP."""
        return {
            "default": {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": {"host": self.host, "port": self.port, "timeout": timeout},
            }
        }

    def start(self) -> SmtpServer:
        if self._controller is None:
            self._controller = Controller(_Recorder(self), hostname=self.host, port=self.port)
            self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None
        wait_for(lambda: not port_is_open(self.port, self.host), 5, what="the SMTP port to close")

    def wait_for(self, count: int, timeout: float = 10) -> list[Received]:
        """Wait until ``count`` messages in all have arrived; return them all."""
        wait_for(lambda: len(self.messages) >= count, timeout, what=f"{count} mail(s)")
        return list(self.messages)


@contextlib.contextmanager
def smtp_server() -> Iterator[SmtpServer]:
    server = SmtpServer().start()
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
