"""Every public page, as a visitor sees it at desktop and phone sizes, light and dark: axe-core
finds no WCAG 2.2 A/AA violation on any of them (the seed arena and a 30 × 300 one)."""

from __future__ import annotations

import pytest

from tests.e2e.axe import violations
from tests.e2e.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.long]

ARENA = "/arenas/durable-execution-engines/"


# The pages above that are a 400 or a 404 by design (the message is the page).
REFUSED = ("search_refused", "pick_refused", "not_found")


def public_pages() -> dict[str, str]:
    from flags.forms import FlagForm
    from flags.services import flag_submit
    from stories.models import Cell, Story
    from web.http.clients import client_hash

    story = Story.objects.get(text__startswith="I run LLM agent loops")
    cell = Cell.objects.get(story=story, product__slug="inngest")
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {"reason": "wrong_quality", "explanation": "The docs say a plug-in is needed here."}
        ),
        client=client_hash("10.7.7.7"),
    )
    return {
        "home": "/",
        "arena": ARENA,
        "arena_filtered": ARENA + "?persona=backend-developer&verdict=disputed&rank=verified",
        "head_to_head": ARENA + "vs/inngest-vs-hatchet/",
        "head_to_head_unpublished": ARENA + "vs/temporal-vs-dbos/",
        "product": ARENA + "products/inngest/",
        "story": f"{ARENA}stories/{story.pk}/",
        "cell": f"/cells/{cell.pk}/",
        "flag": f"/cells/{cell.pk}/flag/",
        "flag_status": f"/flags/status/{flag.token}/",
        "arena_sorted_folded": ARENA + "?sort=inngest&fold=agenticness&show=inngest,dbos",
        "head_to_head_differences_expanded": ARENA + "vs/inngest-vs-hatchet/?diff=1&open=all",
        "methodology": "/methodology/",
        "changes": "/changes/",
        "sources": ARENA + "sources/",
        "disputes": ARENA + "disputes/",
        "disputes_filtered": ARENA + "disputes/?product=inngest&state=open",
        "big_arena": "/arenas/big/",
        "big_head_to_head": "/arenas/big/vs/product-001-vs-product-002/",
        "compare": ARENA + "compare/?products=temporal,inngest,hatchet,dbos&diff=1",
        "must_have": f"{ARENA}must-have/?must={story.pk}&need=self-hosted,open-source",
        "big_compare": "/arenas/big/compare/?products="
        + ",".join(f"product-{i:03}" for i in range(25, 31)),
        # the front door: the search (results, and a search that cannot be run), the picker's
        # message, a 404 with its suggestions, the API reference in the site's pages
        "search": "/search/?q=agent",
        "search_refused": "/search/?q=%21%21",
        "pick_refused": "/pick/?arena=durable-execution-engines&a=dbos&b=dbos",
        "not_found": ARENA + "products/temporl/",
        "api_docs": "/api/docs/",
    }


@pytest.mark.parametrize(
    ("label", "viewport", "dark"),
    [
        ("desktop", DESKTOP, False),
        ("phone", PHONE, False),
        ("phone-dark", PHONE, True),
    ],
)
def test_no_accessibility_violation_on_any_public_page(
    live_server, seeded_arena, big_arena, open_page, artifacts, label, viewport, dark
):
    page = open_page(viewport=viewport, dark=dark)
    found = {}
    pages = public_pages()
    for name, url in pages.items():
        if dark and name.startswith("big_"):
            continue  # the 30 × 300 pages' colours are the seed pages' (they take the most time)
        page.goto(live_server.url + url)
        problems = violations(page)
        if problems:
            found[name] = problems
    print(f"axe, {label}: {len(pages)} pages, violations {found or 0}")
    assert found == {}
    # the pages that say what is wrong answer with their status (a 400, the 404); nothing else fails
    refused = {live_server.url + pages[name] for name in REFUSED}
    assert [p for p in page.problems if p.split(" ", 1)[-1] not in refused] == []
