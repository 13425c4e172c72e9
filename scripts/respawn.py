"""``python scripts/respawn.py COMMAND...``: run a command and start it again whenever it dies on its
own (the Procfile's processes: honcho would stop all three as soon as one exits).

A command that exits by itself (a crash, an OOM kill) is started again after a pause that doubles
from 1 s up to 30 s while it keeps dying within a minute of its start. SIGTERM or SIGINT are passed
on once, and this process then exits with the command's code. The command runs in a process group
of its own (honcho signals the whole group: it would get the signal twice) and gets SIGTERM if
this process dies (``PR_SET_PDEATHSIG``). In production systemd's ``Restart=always`` does the same.
"""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
import time

FIRST_PAUSE, LONGEST_PAUSE, HEALTHY_AFTER = 1.0, 30.0, 60.0
PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


def _die_with_parent() -> None:
    if PRCTL is not None:
        PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: respawn.py COMMAND [ARG...]", file=sys.stderr)
        return 2
    stopping: list[int] = []
    child: subprocess.Popen[bytes] | None = None

    def stop(signum: int, _frame: object) -> None:
        stopping.append(signum)
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    pause = FIRST_PAUSE
    while True:
        started = time.monotonic()
        child = subprocess.Popen(argv, process_group=0, preexec_fn=_die_with_parent)
        code = child.wait()
        if stopping:
            return code
        pause = FIRST_PAUSE if time.monotonic() - started > HEALTHY_AFTER else pause
        print(
            f"respawn: {argv[0]} (pid {child.pid}) exited with code {code}; "
            f"starting it again in {pause:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        deadline = time.monotonic() + pause
        while not stopping and time.monotonic() < deadline:
            time.sleep(0.1)
        if stopping:
            return 0
        pause = min(LONGEST_PAUSE, pause * 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
