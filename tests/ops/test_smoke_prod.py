"""``make smoke-prod`` as a test: the Procfile's three processes under honcho with DEBUG=0 and the two
Redis roles (a noeviction broker, an allkeys-lru cache) answer /readyz without warnings, serve a
page, bring a killed worker back while web and beat keep running, take a flag over HTTP, recompute
after its uphold in the restarted worker, show the corrected verdict and stop cleanly on SIGTERM
(scripts/smoke_prod.py; about a minute)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = [pytest.mark.integration, pytest.mark.long]


@pytest.mark.skipif(
    not (shutil.which("redis-server") or Path("/usr/bin/redis-server").exists()),
    reason="redis-server is not installed (make system-deps)",
)
def test_the_procfile_runs_the_site_end_to_end():
    done = subprocess.run(
        [sys.executable, "scripts/smoke_prod.py"],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=180,
    )
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    steps = [line for line in done.stdout.splitlines() if line.startswith("smoke-prod: ")]
    assert any("200 without warnings" in s for s in steps)
    assert any(
        re.search(r"worker killed .*: respawned as pid \d+, web and beat kept", s) for s in steps
    )
    assert any("shows the corrected verdict 'partial'" in s for s in steps)
    assert any("the worker recomputed the scores after the uphold" in s for s in steps)
    assert any("web, worker and beat exited with code 0" in s for s in steps)
    assert steps[-1].startswith("smoke-prod: OK in ")
