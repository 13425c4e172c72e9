"""A stand-in for Sentry in tests: a local HTTP server (a thread of the test process) that accepts
what sentry-sdk sends (``POST /api/<project>/envelope/``) and keeps each envelope's items, so a test
can point ``SENTRY_DSN`` at it (``recorder.dsn``) and assert what a real service would receive::

    with sentry_recorder() as sentry:
        with live_server_process({"SENTRY_DSN": sentry.dsn}) as url:
            ...
        event = sentry.wait_for_event(lambda e: e["tags"].get("request_id") == "abc")
"""

from __future__ import annotations

import contextlib
import gzip
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Event = dict[str, Any]


def envelope_items(body: bytes) -> list[tuple[dict[str, Any], bytes]]:
    """The (item header, payload) pairs of a Sentry envelope (its first line is its own header)."""
    _, _, rest = body.partition(b"\n")
    items = []
    while rest.strip():
        line, _, rest = rest.partition(b"\n")
        header = json.loads(line)
        if "length" in header:
            payload, rest = rest[: header["length"]], rest[header["length"] + 1 :]
        else:
            payload, _, rest = rest.partition(b"\n")
        items.append((header, payload))
    return items


class SentryRecorder:
    def __init__(self) -> None:
        self.items: list[tuple[dict[str, Any], bytes]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                with recorder._lock:
                    recorder.paths.append(self.path)
                    recorder.items.extend(envelope_items(body))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def dsn(self) -> str:
        return f"http://public@127.0.0.1:{self.port}/1"

    def events(self) -> list[Event]:
        """The error events received so far (not sessions, transactions or client reports)."""
        with self._lock:
            return [json.loads(p) for h, p in self.items if h.get("type") == "event"]

    def wait_for_event(self, predicate: Callable[[Event], bool], timeout: float = 20) -> Event:
        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in self.events() if predicate(e)]
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no matching Sentry event in {timeout}s; got {len(self.events())} events "
                    f"on {self.paths}"
                )
            time.sleep(0.1)


def exception_types(event: Event) -> list[str]:
    return [value["type"] for value in event.get("exception", {}).get("values", [])]


@contextlib.contextmanager
def sentry_recorder() -> Iterator[SentryRecorder]:
    recorder = SentryRecorder()
    recorder.thread.start()
    try:
        yield recorder
    finally:
        recorder.server.shutdown()
        recorder.server.server_close()
