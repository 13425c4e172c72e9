"""Disputes in the open: what a reader sees of the flags on a verdict (the cell's page, the arena's
disputes page, its feed and JSON, the open counts on the arena page and the head-to-heads), what
never shows (a pending flag's explanation, source, e-mail; any token or client hash), and that each
filing and decision shows at once on cached pages."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena.models import CacheEpoch
from flags.forms import DecisionForm, FlagForm
from flags.models import Flag, ReviewItem, Status
from flags.services import flag_submit, review_item_reject, review_item_uphold
from products.models import Product
from stories.models import Cell
from stories.values import Verdict
from web.http.clients import client_hash

pytestmark = pytest.mark.django_db

SECRET_TEXT = "Secret explanation that stays private until decided"
SECRET_URL = "https://private.example/evidence-page"
SECRET_EMAIL = "reporter-private@example.com"
NOTE = "The changelog of 2.4 confirms it; corrected."
REJECT_NOTE = "The linked docs describe the enterprise edition only."


def _cell(arena, n: int = 0) -> Cell:
    return (
        Cell.objects.on_pages().filter(story__arena=arena, verdict=Verdict.FULL).order_by("pk")[n]
    )


def file(cell: Cell, ip: str, **fields) -> Flag:
    data = {
        "reason": "wrong_verdict",
        "explanation": SECRET_TEXT,
        "source_url": SECRET_URL,
        "email": SECRET_EMAIL,
        "proposed_verdict": "partial",
        "proposed_quality": 4,
        **fields,
    }
    return flag_submit(cell=cell, form=FlagForm(data), client=client_hash(ip))


def page(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.content[:500])
    return response.content.decode()


def secrets_of(flag: Flag) -> list[str]:
    return [SECRET_TEXT, SECRET_URL, SECRET_EMAIL, flag.token, flag.client_hash]


def public_urls(arena, cell: Cell) -> list[str]:
    base = arena.get_absolute_url()
    return [
        f"/cells/{cell.pk}/",
        f"/cells/{cell.pk}.md",
        f"{base}disputes/",
        f"{base}disputes/?state=open",
        f"{base}disputes.json",
        f"{base}disputes/feed/",
        base,
    ]


def test_a_pending_dispute_shows_its_date_reasons_and_proposals_and_nothing_private(
    client, seeded_arena
):
    cell = _cell(seeded_arena)
    flag = file(cell, "10.9.0.1")
    file(cell, "10.9.0.2", reason="outdated_evidence", proposed_verdict="", proposed_quality=None)
    html = page(client, f"/cells/{cell.pk}/")
    section = html.split('id="disputes"', 1)[1].split("</section>", 1)[0]
    assert "Under review" in section and f"{timezone.now():%Y-%m-%d}" in section
    assert "Wrong verdict; Evidence outdated or broken" in section
    assert "proposed: partial 4/10" in section and "2 flags" in section
    assert "filed by the vendor" not in section
    markdown = page(client, f"/cells/{cell.pk}.md")
    assert "## Disputes" in markdown and "Under review since" in markdown
    assert "Wrong verdict; Evidence outdated or broken" in markdown
    for url in public_urls(seeded_arena, cell):
        body = page(client, url)
        for secret in secrets_of(flag):
            assert secret not in body, (url, secret)


def _decision(item: ReviewItem, note: str, **correction) -> DecisionForm:
    return DecisionForm({"note": note, "version": item.version, **correction})


def test_a_rejected_dispute_shows_the_decision_its_date_and_the_note(
    client, seeded_arena, moderator
):
    cell = _cell(seeded_arena)
    flag = file(cell, "10.9.1.1")
    review_item_reject(item=flag.item, moderator=moderator, form=_decision(flag.item, REJECT_NOTE))
    html = page(client, f"/cells/{cell.pk}/")
    section = html.split('id="disputes"', 1)[1].split("</section>", 1)[0]
    assert "Rejected" in section and REJECT_NOTE in section
    assert "Under review" not in section
    assert SECRET_EMAIL not in html and flag.token not in html


def test_an_upheld_dispute_shows_the_correction_and_its_direction_everywhere(
    client, seeded_arena, moderator, django_capture_on_commit_callbacks
):
    cell = _cell(seeded_arena)
    flag = file(cell, "10.9.2.1")
    # (the form's affiliation checkbox is another piece of work: the stored field is what counts)
    Flag.objects.filter(pk=flag.pk).update(affiliated=True)
    with django_capture_on_commit_callbacks(execute=True):
        review_item_uphold(item=flag.item, moderator=moderator, form=_decision(flag.item, NOTE))
    html = page(client, f"/cells/{cell.pk}/")
    section = html.split('id="disputes"', 1)[1].split("</section>", 1)[0]
    assert "Upheld" in section and NOTE in section and "filed by the vendor" in section
    assert "partial" in section and "against the product&#x27;s claim" in section
    # the verdict history and the public record label the correction's direction too
    history = html.split('id="history-h"', 1)[1].split("</section>", 1)[0]
    assert "against the product&#x27;s claim" in history
    assert "against the product&#x27;s claim" in page(client, "/changes/")
    data = client.get(f"{seeded_arena.get_absolute_url()}disputes.json").json()
    [shown] = data["disputes"]
    assert shown["state"] == "upheld" and shown["filed_by_vendor"] is True
    assert shown["correction"]["direction"] == "against" and shown["note"] == NOTE
    # once decided, the reporter's text is still not published (only the decision's)
    for url in public_urls(seeded_arena, cell):
        body = page(client, url)
        assert SECRET_EMAIL not in body and flag.token not in body, url


def test_disputes_are_listed_newest_first_with_a_constant_number_of_queries(
    client, seeded_arena, moderator
):
    base = seeded_arena.get_absolute_url()
    urls = [f"{base}disputes/", f"{base}disputes.json", f"{base}disputes/feed/"]
    first = file(_cell(seeded_arena, 0), "10.9.3.1")
    review_item_reject(item=first.item, moderator=moderator, form=_decision(first.item, "No."))
    for url in urls:
        client.get(url)  # (each count after a change: the arena's counts read anew, once)
    counts: dict[str, list[int]] = {url: [] for url in urls}
    for n in (1, 2, 5):
        file(_cell(seeded_arena, n), f"10.9.3.{n + 10}")
        for url in urls:
            with CaptureQueriesContext(connection) as ctx:
                assert client.get(url).status_code == 200
            counts[url].append(len(ctx.captured_queries))
    assert all(c == [c[0]] * 3 for c in counts.values()), counts
    url = urls[0]
    html = page(client, url)
    newest, oldest = _cell(seeded_arena, 5), _cell(seeded_arena, 0)
    assert html.index(f"/cells/{newest.pk}/#disputes") < html.index(f"/cells/{oldest.pk}/#disputes")


def test_the_cell_page_reads_its_disputes_in_constant_queries(client, seeded_arena, moderator):
    cell = _cell(seeded_arena)
    counts = []
    for n in range(3):
        flag = file(cell, f"10.9.4.{n + 1}")
        review_item_reject(item=flag.item, moderator=moderator, form=_decision(flag.item, "No."))
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"/cells/{cell.pk}/").status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts == [counts[0]] * 3, counts


def test_the_disputes_page_filters_by_product_story_and_state(client, seeded_arena, moderator):
    a, b = _cell(seeded_arena, 0), None
    b = (
        Cell.objects.on_pages()
        .filter(story__arena=seeded_arena)
        .exclude(product=a.product)
        .exclude(story=a.story)
        .first()
    )
    assert b is not None
    fa = file(a, "10.9.5.1")
    file(b, "10.9.5.2")
    review_item_reject(item=fa.item, moderator=moderator, form=_decision(fa.item, "No."))
    base = f"{seeded_arena.get_absolute_url()}disputes/"
    by_product = page(client, f"{base}?product={a.product.slug}")
    assert f"/cells/{a.pk}/#disputes" in by_product and f"/cells/{b.pk}/#" not in by_product
    by_story = page(client, f"{base}?story={b.story_id}")
    assert f"/cells/{b.pk}/#disputes" in by_story and f"/cells/{a.pk}/#" not in by_story
    open_ = page(client, f"{base}?state=open")
    assert f"/cells/{b.pk}/#disputes" in open_ and f"/cells/{a.pk}/#" not in open_
    decided = page(client, f"{base}?state=decided")
    assert f"/cells/{a.pk}/#disputes" in decided and f"/cells/{b.pk}/#" not in decided
    data = client.get(f"{seeded_arena.get_absolute_url()}disputes.json?state=open").json()
    assert [d["cell"] for d in data["disputes"]] == [b.pk] and data["count"] == 1
    feed = page(client, f"{base}feed/?product={b.product.slug}")
    assert f"/cells/{b.pk}/#dispute-" in feed and f"/cells/{a.pk}/#" not in feed


def test_the_list_pages_keep_their_filters(client, seeded_arena):
    for n in range(27):
        file(_cell(seeded_arena, n), f"10.9.6.{n + 1}")
    base = f"{seeded_arena.get_absolute_url()}disputes/"
    first = page(client, f"{base}?state=open")
    assert "page 1 of 2" in first and f'href="{base}?state=open&amp;page=2"' in first
    second = page(client, f"{base}?state=open&page=2")
    assert second.count('class="dispute ') == 2


@pytest.mark.parametrize(
    "query, message",
    [
        ("product=no-such-product", "No product"),
        ("product=%3Cscript%3E", "No product"),
        ("story=abc", "by its number"),
        ("story=99999999999999999999999", "by its number"),
        ("story=999999", "No story 999999"),
        ("state=maybe", "A state is one of"),
    ],
)
def test_a_bad_filter_is_a_400_with_a_message(client, seeded_arena, query, message):
    base = f"{seeded_arena.get_absolute_url()}disputes"
    assert message in page(client, f"{base}/?{query}", 400)
    response = client.get(f"{base}.json?{query}")
    assert response.status_code == 400 and message in response.json()["detail"]
    assert client.get(f"{base}/feed/?{query}").status_code == 400


def test_an_odd_page_number_shows_a_page(client, seeded_arena):
    base = f"{seeded_arena.get_absolute_url()}disputes/"
    for number in ("0", "-1", "abc", "99999999999999999999", "%00"):
        assert client.get(f"{base}?page={number}").status_code == 200


def test_the_arena_page_and_head_to_heads_count_open_disputes_per_product(
    client, seeded_arena, moderator
):
    a, b = Product.objects.filter(arena=seeded_arena).order_by("position")[:2]
    cells = list(Cell.objects.on_pages().filter(product=a).order_by("pk")[:3])
    for n, cell in enumerate(cells):
        file(cell, f"10.9.7.{n + 1}")
    rejected = Flag.objects.filter(cell=cells[2]).get()
    review_item_reject(
        item=rejected.item, moderator=moderator, form=_decision(rejected.item, "No.")
    )
    link = f"{seeded_arena.get_absolute_url()}disputes/?product={a.slug}&amp;state=open"
    html = page(client, seeded_arena.get_absolute_url())
    # the leaderboard's row and the matrix's column head
    assert html.count(f'href="{link}"') >= 2
    assert "2 open disputes" in html
    assert f"?product={b.slug}&amp;state=open" not in html
    pair = page(client, f"{seeded_arena.get_absolute_url()}vs/{a.slug}-vs-{b.slug}/")
    assert f'href="{link}"' in pair and "2 open disputes" in pair
    # a pair with no open dispute on either side says nothing of disputes above its rounds
    c = Product.objects.filter(arena=seeded_arena).order_by("position")[2]
    quiet = page(client, f"{seeded_arena.get_absolute_url()}vs/{b.slug}-vs-{c.slug}/")
    assert "h2h-disputes" not in quiet and "Open disputes:" not in quiet


def test_open_counts_cost_one_query_whatever_their_number(client, seeded_arena):
    url = seeded_arena.get_absolute_url()
    client.get(url)
    products = list(Product.objects.filter(arena=seeded_arena).order_by("position"))
    counts = []
    for n, product in enumerate(products[:3]):
        file(Cell.objects.on_pages().filter(product=product).first(), f"10.9.8.{n + 1}")
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts == [counts[0]] * 3, counts


def test_kept_open_counts_follow_a_filing_and_a_rejection_at_once(
    client, seeded_arena, moderator, settings
):
    """With the cache epoch a migrated database has, the counts are kept per content version (a
    render without the page cache that finds them reads no review item), and a flag filed or
    rejected moves the version."""
    settings.PAGE_CACHE = False
    CacheEpoch.objects.update_or_create(pk=1, defaults={"value": "kept"})
    url, cell = seeded_arena.get_absolute_url(), _cell(seeded_arena)
    shown = f"1 open dispute on {cell.product.name}"
    assert shown not in page(client, url)
    flag = file(cell, "10.9.6.1")
    assert shown in page(client, url)
    with CaptureQueriesContext(connection) as again:
        assert shown in page(client, url)
    assert not [q for q in again.captured_queries if "flags_reviewitem" in q["sql"]]
    review_item_reject(item=flag.item, moderator=moderator, form=_decision(flag.item, "No."))
    assert shown not in page(client, url)


@pytest.fixture
def cached(settings):
    settings.PAGE_CACHE = True


def test_a_cached_page_shows_a_filing_and_a_rejection_at_once(
    client, seeded_arena, moderator, cached
):
    cell = _cell(seeded_arena)
    urls = [f"/cells/{cell.pk}/", f"{seeded_arena.get_absolute_url()}disputes/"]
    before = {url: client.get(url) for url in urls}
    assert all("Under review" not in r.content.decode() for r in before.values())
    flag = file(cell, "10.9.9.1")
    for url in urls:
        after = client.get(url, HTTP_IF_NONE_MATCH=before[url]["ETag"])
        assert after.status_code == 200 and "Under review" in after.content.decode(), url
    filed = {url: client.get(url) for url in urls}
    review_item_reject(item=flag.item, moderator=moderator, form=_decision(flag.item, REJECT_NOTE))
    for url in urls:
        after = client.get(url, HTTP_IF_NONE_MATCH=filed[url]["ETag"])
        assert after.status_code == 200 and REJECT_NOTE in after.content.decode(), url


def test_a_split_decision_shows_the_unseen_flags_as_a_new_open_dispute(
    client, seeded_arena, moderator, cached
):
    cell = _cell(seeded_arena)
    seen = file(cell, "10.9.10.1")
    file(cell, "10.9.10.2", reason="missing_evidence")
    url = f"/cells/{cell.pk}/"
    before = client.get(url)
    decision = DecisionForm(
        {"note": REJECT_NOTE, "version": seen.item.version, "flags": list({seen.pk})}
    )
    review_item_reject(item=seen.item, moderator=moderator, form=decision)
    assert ReviewItem.objects.filter(cell=cell, status=Status.PENDING).count() == 1
    html = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"]).content.decode()
    section = html.split('id="disputes"', 1)[1].split("</section>", 1)[0]
    entries = section.split("<li ")[1:]
    [open_] = [e for e in entries if "Under review" in e]
    [rejected] = [e for e in entries if "Rejected" in e]
    assert "Missing evidence" in open_ and "Missing evidence" not in rejected
    assert REJECT_NOTE in rejected and REJECT_NOTE not in open_


def test_a_cached_page_shows_an_uphold_at_once(
    client, seeded_arena, moderator, cached, django_capture_on_commit_callbacks
):
    cell = _cell(seeded_arena)
    flag = file(cell, "10.9.11.1")
    urls = [f"/cells/{cell.pk}/", f"{seeded_arena.get_absolute_url()}disputes/?state=upheld"]
    before = {url: client.get(url) for url in urls}
    with django_capture_on_commit_callbacks(execute=True):
        review_item_uphold(item=flag.item, moderator=moderator, form=_decision(flag.item, NOTE))
    for url in urls:
        after = client.get(url, HTTP_IF_NONE_MATCH=before[url]["ETag"])
        assert after.status_code == 200 and NOTE in after.content.decode(), url


def test_a_duplicate_is_named_so_and_a_vendors_pending_flag_is_labelled(
    client, seeded_arena, moderator
):
    cell, other = _cell(seeded_arena, 0), _cell(seeded_arena, 1)
    dup = file(cell, "10.9.12.1")
    decision = _decision(dup.item, "Same as the flag decided last week.")
    review_item_reject(item=dup.item, moderator=moderator, form=decision, duplicate=True)
    vendor = file(other, "10.9.12.2")
    Flag.objects.filter(pk=vendor.pk).update(affiliated=True)
    html = page(client, f"{seeded_arena.get_absolute_url()}disputes/")
    entries = {e.split('"', 1)[0]: e for e in html.split('id="dispute-')[1:]}
    assert "Marked duplicate" in entries[str(dup.item_id)]
    assert "Same as the flag decided last week." in entries[str(dup.item_id)]
    pending = entries[str(vendor.item_id)]
    assert "Under review" in pending and "filed by the vendor" in pending
    assert "filed by the vendor" not in entries[str(dup.item_id)]
    data = client.get(f"{seeded_arena.get_absolute_url()}disputes.json?state=duplicate").json()
    assert [d["state"] for d in data["disputes"]] == ["duplicate"]
