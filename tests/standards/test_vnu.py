"""Every public page type passes the Nu HTML Checker (vnu, the W3C's validator): each page is
rendered with the test client, written to a folder, and checked in one run of the checker (one
JVM start), errors only. htmx's ``hx-*`` attributes are not HTML's and are filtered out."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from tests.standards.conftest import PAGES

pytestmark = pytest.mark.django_db

VNU = Path(settings.BASE_DIR) / "tools/node_modules/vnu-jar/build/dist/vnu.jar"
# htmx's attributes (not HTML's; htmx reads them)
FILTER = r".*Attribute “hx-[a-z-]+” not allowed.*"


def vnu_errors(folder: Path) -> dict[str, list[str]]:
    """vnu's errors for every ``*.html`` in ``folder``, by file name (one JVM for them all)."""
    java = shutil.which("java")
    if java is None or not VNU.exists():
        pytest.skip("the Nu HTML Checker needs java and its jar (make node-tools)")
    files = sorted(str(path) for path in folder.glob("*.html"))
    run = subprocess.run(
        [java, "-Xss2m", "-jar", str(VNU), "--format", "json", "--errors-only"]
        + ["--filterpattern", FILTER, *files],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    messages = json.loads(run.stderr or run.stdout)["messages"]
    found: dict[str, list[str]] = {Path(f).stem: [] for f in files}
    seen: dict[tuple[str, str], int] = {}
    for message in messages:
        name = Path(message.get("url", "")).stem
        key = (name, message["message"])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 1:  # each message once per page, at its first place
            found.setdefault(name, []).append(
                f"line {message.get('lastLine', '?')}: {message['message']}"
                f" — {message.get('extract', '').strip()!r}"
            )
    return found


def test_every_public_page_type_is_valid_html(client, site, tmp_path):
    for name, address in PAGES.items():
        response = client.get(address(site))
        expected = 404 if name == "404" else 200
        assert response.status_code == expected, (name, response.status_code)
        assert response["Content-Type"].startswith("text/html"), name
        (tmp_path / f"{name.replace(' ', '-')}.html").write_bytes(response.content)
    errors = vnu_errors(tmp_path)
    assert len(errors) == len(PAGES)
    failing = {name: found for name, found in errors.items() if found}
    assert not failing, "vnu errors:\n" + "\n".join(
        f"{name}:\n  " + "\n  ".join(found) for name, found in failing.items()
    )
