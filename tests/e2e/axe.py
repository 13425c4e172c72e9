"""axe-core in the page under test: ``violations(page)`` → the WCAG 2.x A/AA rules it breaks, as
``(rule, node count)``. The script comes from npm's ``axe-core`` (``AXE_CORE_JS``, else
``node_modules/axe-core/axe.min.js`` at the project root); without it the check finds nothing
and says so in a warning (the rest of the test still runs)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def axe_script() -> str | None:
    path = Path(os.environ.get("AXE_CORE_JS") or ROOT / "node_modules/axe-core/axe.min.js")
    return path.read_text() if path.is_file() else None


def violations(page, *, ignore: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """Run axe on the page as it is now. ``page.evaluate`` runs outside the page's CSP."""
    script = axe_script()
    if script is None:
        warnings.warn(
            "axe-core not installed (npm install axe-core@4, or set AXE_CORE_JS)", stacklevel=2
        )
        return []
    page.evaluate(script)
    found = page.evaluate(
        "async tags => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))"
        ".violations.map(v => [v.id, v.nodes.length])",
        TAGS,
    )
    return [(rule, count) for rule, count in found if rule not in ignore]
