"""scripts/respawn.py, which the Procfile runs each process under: a command that dies on its own
is started again, a SIGTERM is passed on once and ends it for good, with the command's exit code.
(scripts/smoke_prod.py kills the real worker under honcho: tests/ops/test_smoke_prod.py.)"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from tests.infra.services import wait_for

# a stand-in for a server: prints its pid, counts the SIGTERMs it gets, exits 0 on the first
SERVER = """
import os, signal, sys, time
print("started", os.getpid(), flush=True)
def stop(*_):
    print("stopping", os.getpid(), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    time.sleep(0.1)
"""


def pids(log: Path, word: str) -> list[int]:
    return [int(x.split()[1]) for x in log.read_text().splitlines() if x.startswith(word + " ")]


def test_a_killed_command_comes_back_and_sigterm_stops_it_for_good(tmp_path):
    log = tmp_path / "out.log"
    with log.open("wb") as out:
        wrapper = subprocess.Popen(
            [sys.executable, "scripts/respawn.py", sys.executable, "-c", SERVER],
            cwd=settings.BASE_DIR,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(lambda: pids(log, "started"), 20, what="the command to start")
            [first] = pids(log, "started")
            subprocess.run(["kill", "-KILL", str(first)], check=True)  # a crash
            wait_for(lambda: len(pids(log, "started")) == 2, 20, what="the command to come back")
            second = pids(log, "started")[1]
            assert second != first
            assert f"respawn: {sys.executable} (pid {first}) exited with code -9" in log.read_text()
            wrapper.send_signal(signal.SIGTERM)
            assert wrapper.wait(timeout=20) == 0  # the command's own exit code
        finally:
            if wrapper.poll() is None:
                wrapper.kill()
    assert pids(log, "stopping") == [second]  # told once, and not started again
    assert len(pids(log, "started")) == 2
