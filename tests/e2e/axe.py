"""axe-core in the page under test: ``violations(page)`` → the WCAG 2.x A/AA rules it breaks, as
``(rule, node count)``. The script is the ``axe.min.js`` that the ``axe-playwright-python`` wheel
ships (a locked dev dependency, so every run has it); ``AXE_CORE_JS`` points at another copy."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import axe_playwright_python  # type: ignore[import-untyped]  # no types shipped; its path is used
from playwright.sync_api import Page

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BUNDLED = Path(axe_playwright_python.__file__).parent / "axe.min.js"


@cache
def axe_script() -> str:
    return Path(os.environ.get("AXE_CORE_JS") or BUNDLED).read_text()


def violations(page: Page, *, ignore: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """Run axe on the page as it is now. ``page.evaluate`` runs outside the page's CSP.

    ``resultTypes`` still runs every rule on every node; it only spares axe describing each node
    that passed (a CSS selector apiece), which nothing reads and the 30 × 300 pages have by the
    thousand."""
    page.evaluate(axe_script())
    found = page.evaluate(
        "async tags => (await axe.run(document, {runOnly: {type: 'tag', values: tags},"
        " resultTypes: ['violations']}))"
        ".violations.map(v => [v.id, v.nodes.length])",
        TAGS,
    )
    return [(rule, count) for rule, count in found if rule not in ignore]
