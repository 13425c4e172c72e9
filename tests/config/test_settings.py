"""Settings are checked when a process starts, not when a visitor first needs them."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.text import parse_rate

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]


def start_django(**env) -> subprocess.CompletedProcess:
    """What gunicorn, a Celery worker or manage.py do first: load the settings and set Django up."""
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("bad", ["10/fortnight", "ten/hour", "0/hour", "10", "-3/minute", ""])
def test_a_bad_flag_rate_stops_the_process_at_start_up_naming_the_setting(bad):
    started = start_django(FLAG_RATE=bad)
    assert started.returncode != 0
    assert "ImproperlyConfigured: FLAG_RATE:" in started.stderr
    assert "like 10/hour" in started.stderr


def test_a_good_flag_rate_starts():
    assert start_django(FLAG_RATE="20 / minute").returncode == 0


@pytest.mark.parametrize(
    "text,rate", [("10/hour", (10, 3600)), ("1/second", (1, 1)), ("500/day", (500, 86400))]
)
def test_rates_read_as_count_and_seconds(text, rate):
    assert parse_rate(text) == rate
