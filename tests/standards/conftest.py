"""What the standards tests share: the bundled arena with one open flag, and the address of each
public page type in it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flags.forms import FlagForm
from flags.models import Flag, Reason
from flags.services import flag_submit
from stories.models import Cell, Story

ARENA = "durable-execution-engines"
EXPLANATION = "The documentation now describes this feature in detail, with examples."

Site = dict[str, Any]

# Every public page type, by name: its address in the ``site`` fixture's arena. Pages other
# engineers reshape (the home page, the 404, the matrix, the API docs) are only rendered here,
# never read, so the checks hold whatever they become.
PAGES: dict[str, Callable[[Site], str]] = {
    "home": lambda site: "/",
    "methodology": lambda site: "/methodology/",
    "arena": lambda site: f"/arenas/{ARENA}/",
    "matrix": lambda site: f"/arenas/{ARENA}/?verdict=yes&q=retry&sort=inngest&stale=1",
    "story": lambda site: f"/arenas/{ARENA}/stories/{site['story'].pk}/",
    "cell": lambda site: f"/cells/{site['cell'].pk}/",
    "head-to-head": lambda site: f"/arenas/{ARENA}/vs/inngest-vs-hatchet/",
    "compare": lambda site: f"/arenas/{ARENA}/compare/?products=inngest,hatchet,temporal",
    "product": lambda site: f"/arenas/{ARENA}/products/inngest/",
    "flag form": lambda site: f"/cells/{site['cell'].pk}/flag/",
    "flag status": lambda site: f"/flags/status/{site['flag'].token}/",
    "changes": lambda site: "/changes/",
    "disputes": lambda site: f"/arenas/{ARENA}/disputes/",
    "API docs": lambda site: "/api/docs/",
    "404": lambda site: "/no-such-page/",
}


@pytest.fixture
def site(seeded_arena: Any, settings: Any) -> Site:
    settings.FLAG_RATE = "100000/hour"
    cell = Cell.objects.filter(story__arena=seeded_arena).order_by("pk").first()
    story = Story.objects.filter(arena=seeded_arena).order_by("pk").first()
    flag: Flag = flag_submit(
        cell=cell,
        form=FlagForm({"reason": Reason.OTHER, "explanation": EXPLANATION}),
        client="standards",
    )
    return {"arena": seeded_arena, "cell": cell, "story": story, "flag": flag}
