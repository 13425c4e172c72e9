"""What would settle a close call, as visitors see it: the head-to-head of a pair too close to
call names the cells to verify, and each arena's verification queue (HTML and JSON) ranks its
unverified cells by how many close calls they help settle, from the stored close calls."""

from __future__ import annotations

import pytest
from django.urls import reverse

from arena.models import SETTLE_LISTED, CloseCall
from arena.scoring.results import is_unverified
from arena.selectors import settle
from arena.selectors.inputs import arena_scoring_inputs
from products.models import Product
from stories.models import Cell
from tests.arena.test_close_calls_stored import stored_close_calls

pytestmark = pytest.mark.django_db


def test_the_head_to_head_of_a_close_pair_names_the_cells_that_would_settle_it(
    client, seeded_arena
):
    call = next(c for c in stored_close_calls(seeded_arena) if 0 < c["count"] <= SETTLE_LISTED)
    a, b = Product.objects.get(pk=call["a"]), Product.objects.get(pk=call["b"])
    for first, second in ((a, b), (b, a)):  # whichever side the address puts first
        url = reverse("head-to-head", args=[seeded_arena.slug, first.slug, second.slug])
        html = client.get(url).content.decode()
        n = len(call["settle"])
        cells = "this cell" if n == 1 else f"these {n} cells"
        assert f"Verify {cells} to settle {a.name} vs {b.name}" in html
        for cell in Cell.objects.filter(pk__in=call["settle"]).select_related("product"):
            assert reverse("cell-detail", args=[cell.pk]) in html
            assert reverse("flag-create", args=[cell.pk]) in html


def test_a_long_settle_set_lists_its_largest_gains_and_counts_the_rest(client, seeded_arena):
    call = max(stored_close_calls(seeded_arena), key=lambda c: c["count"])
    assert call["count"] > SETTLE_LISTED == len(call["settle"])  # (the seed's 35)
    a, b = Product.objects.get(pk=call["a"]), Product.objects.get(pk=call["b"])
    html = client.get(reverse("head-to-head", args=[seeded_arena.slug, a.slug, b.slug])).text
    assert f"Verify {call['count']} cells to settle {a.name} vs {b.name}" in html
    more = call["count"] - SETTLE_LISTED
    assert f"The {SETTLE_LISTED} with the largest gains are listed; {more} more" in html
    assert html.count('class="settle-cells"') == 1
    for cell in call["settle"]:
        assert reverse("cell-detail", args=[cell]) in html
    queue = client.get(reverse("arena-verify", args=[seeded_arena.slug])).text
    assert f"{a.name} vs {b.name}</a>:\n      verify {call['count']} cells to settle it" in queue


def test_a_pair_that_is_called_shows_nothing_to_settle(client, seeded_arena):
    close = {frozenset((c["a"], c["b"])) for c in stored_close_calls(seeded_arena)}
    products = list(Product.objects.filter(arena=seeded_arena).order_by("position"))
    called = next(
        (x, y)
        for x in products
        for y in products
        if x != y and frozenset((x.pk, y.pk)) not in close
    )
    url = reverse("head-to-head", args=[seeded_arena.slug, called[0].slug, called[1].slug])
    html = client.get(url).content.decode()
    assert "to settle" not in html and 'id="settle-h"' not in html


def test_the_queue_json_lists_every_unverified_cell_ranked_by_close_calls_helped(
    client, seeded_arena
):
    inputs = arena_scoring_inputs(arena_id=seeded_arena.pk)
    unverified = {
        inputs.cell_ids[(c.story_id, c.product)] for c in inputs.cells if is_unverified(c)
    }
    slug = dict(Product.objects.filter(arena=seeded_arena).values_list("pk", "slug"))
    calls = stored_close_calls(seeded_arena)
    data = client.get(reverse("arena-verify-json", args=[seeded_arena.slug])).json()
    assert data["arena"] == seeded_arena.slug
    assert data["count"] == len(unverified) == len(data["cells"])
    assert {c["cell"] for c in data["cells"]} == unverified
    assert [(p["leader"], p["trailer"]) for p in data["close_calls"]] == [
        (slug[c["a"]], slug[c["b"]]) for c in calls
    ]
    for item in data["cells"]:
        expected = [[slug[c["a"]], slug[c["b"]]] for c in calls if item["cell"] in c["settle"]]
        assert item["settles"] == expected
        assert item["url"] == reverse("cell-detail", args=[item["cell"]])
        assert item["flag_url"] == reverse("flag-create", args=[item["cell"]])
        assert item["proof"] in ("claimed", "auth-gated")
    counts = [len(item["settles"]) for item in data["cells"]]
    assert counts == sorted(counts, reverse=True)
    assert counts[0] > 0


def test_the_queue_page_works_without_script_and_is_linked_from_the_arena(client, seeded_arena):
    url = reverse("arena-verify", args=[seeded_arena.slug])
    assert url in client.get(reverse("arena-detail", args=[seeded_arena.slug])).content.decode()
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    data = client.get(reverse("arena-verify-json", args=[seeded_arena.slug])).json()
    helping = sum(1 for c in data["cells"] if c["settles"])
    assert f"{data['count']} unverified cells, {helping} of them would help settle" in html
    first = data["cells"][0]
    assert html.index(reverse("flag-create", args=[first["cell"]])) < html.index(
        reverse("flag-create", args=[data["cells"][-1]["cell"]])
    )
    for pair in data["close_calls"]:
        assert (
            reverse("head-to-head", args=[seeded_arena.slug, pair["leader"], pair["trailer"]])
            in html
        )


def test_an_arena_with_no_close_call_says_so(client, seeded_arena):
    CloseCall.objects.filter(arena=seeded_arena).delete()
    html = client.get(reverse("arena-verify", args=[seeded_arena.slug])).content.decode()
    assert "No pair of products is too close to call" in html
    assert "0 of them would help settle" in html


@pytest.mark.parametrize("name", ["arena-verify", "arena-verify-json"])
def test_an_unknown_arena_is_a_404(client, db, name):
    assert client.get(reverse(name, args=["no-such-arena"])).status_code == 404


@pytest.mark.parametrize(("name", "bound"), [("arena-verify", 8), ("arena-verify-json", 9)])
@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_the_queue_costs_as_many_queries_whatever_the_arena_size(
    client, request, django_assert_max_num_queries, name, bound, size
):
    arena = request.getfixturevalue(size)
    # the content version, the arena, its products, the close calls (and in JSON their listed
    # cells), the queue's count, its page, the page's close calls, how many help settle one
    with django_assert_max_num_queries(bound):
        assert client.get(reverse(name, args=[arena.slug])).status_code == 200


def test_the_queue_is_paged_in_its_order_with_links_to_the_rest(client, seeded_arena, monkeypatch):
    monkeypatch.setattr(settle, "QUEUE_PAGE", 40)
    url = reverse("arena-verify-json", args=[seeded_arena.slug])
    first = client.get(url).json()
    pages, cells, data = first["pages"], [], first
    assert first["count"] > 80 and pages == -(-first["count"] // 40) and first["page"] == 1
    while True:
        assert len(data["cells"]) == (40 if data["next"] else first["count"] - 40 * (pages - 1))
        cells += data["cells"]
        if not data["next"]:
            break
        data = client.get(data["next"]).json()
        assert data["close_calls"] == first["close_calls"]
    assert data["page"] == pages and len({c["cell"] for c in cells}) == first["count"]
    counts = [len(c["settles"]) for c in cells]
    assert counts == sorted(counts, reverse=True)  # one order across the pages
    html = client.get(reverse("arena-verify", args=[seeded_arena.slug]), {"page": 2}).text
    assert (
        "verification queue (page 2) · Arena</title>" in html
        and '<ol class="verify-queue" start="41">' in html
    )
    assert (
        f'<link rel="canonical" href="http://testserver{reverse("arena-verify", args=[seeded_arena.slug])}?page=2">'
        in html
    )
    assert (
        'href="?page=1#queue-h">← previous</a>' in html
        and 'href="?page=3#queue-h">next →</a>' in html
    )
    assert f"Page 2 of {pages}" in html
    beyond = client.get(
        url, {"page": pages + 5}
    ).json()  # out of range: the last page, as elsewhere
    assert beyond["page"] == pages and beyond["next"] is None
