"""A TCP port that counts the connections made to it and closes each at once: stands where a
service is down, so a test can assert how often the code tried to reach it (state, not time).

    with CountingListener() as door:      # .port .url("redis") .settled_count()
        ...
        assert door.settled_count() == 1
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class CountingListener:
    def __init__(self, port: int = 0, host: str = "127.0.0.1") -> None:
        self.host = host
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self._sock.listen(64)
        self.port: int = self._sock.getsockname()[1]
        self._count = 0
        self._probes = 0  # connections settled_count made itself
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def url(self, scheme: str = "redis", path: str = "/0") -> str:
        return f"{scheme}://{self.host}:{self.port}{path}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:  # closed
                return
            with self._lock:
                self._count += 1  # counted before the client can see it closed
            conn.close()

    def settled_count(self) -> int:
        """The connections made so far, every one already waiting in the backlog included: a
        connection of our own is accepted after all of those (the backlog is first in, first
        out), so once it is closed the count is complete."""
        with socket.create_connection((self.host, self.port), timeout=10) as probe:
            probe.settimeout(10)
            assert probe.recv(1) == b""  # closed by the listener: counted
        self._probes += 1
        with self._lock:
            return self._count - self._probes

    def __enter__(self) -> CountingListener:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() under way (Linux)
        self._sock.close()
        self._thread.join(timeout=5)
