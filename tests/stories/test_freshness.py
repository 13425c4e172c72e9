"""Evidence freshness: the dates evidence and cells carry (import, admin, upheld flags), how old each
cell's evidence shows on the pages and the API, the "stale" badge past EVIDENCE_STALE_DAYS, each
product's share of stale cells, and pages that turn stale at midnight with no write."""

from __future__ import annotations

import re
from datetime import date, timedelta
from html import unescape

import pytest
from django.core.exceptions import ValidationError
from django.db.models import Count

from arena.models import Arena
from arena.selectors.arenas import arena_get, arena_product_list
from arena.selectors.leaderboard import arena_stale_counts
from arena.selectors.matrix import MatrixFilters, arena_matrix
from products.models import Product
from stories import freshness
from stories.models import Cell, CellChange, Evidence
from stories.services import cell_correct, evidence_add, evidence_update
from stories.values import CellValue, Proof, Verdict
from tests.factories import CellFactory, EvidenceFactory

pytestmark = pytest.mark.django_db

SEED_AS_OF = date(2026, 9, 16)  # the seed pages' "Evidence as of"
ARENA = "/arenas/durable-execution-engines/"


@pytest.fixture
def on_day(monkeypatch):
    """Set the site's today (what staleness is counted from) to a given date."""

    def set_day(day: date) -> date:
        monkeypatch.setattr(freshness, "today", lambda: day)
        return day

    return set_day


def text_of(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()
    return re.sub(r"\( (.*?) \)", r"(\1)", text)  # "( 2026-09-16 )" from "(<time>…</time>)"


def version(arena_id: int) -> int:
    return Arena.objects.get(pk=arena_id).content_version


# ------------------------------------------------------------------ the rule


@pytest.mark.parametrize(
    ("verdict", "age", "stale"),
    [
        (Verdict.FULL, 0, False),
        (Verdict.FULL, 180, False),  # "older than 180 days": day 180 is not yet
        (Verdict.FULL, 181, True),
        (Verdict.NONE, 400, True),
        (Verdict.NA, 400, False),  # n/a rests on no evidence: never stale
        (Verdict.FULL, None, True),  # a judged cell with no check date at all
        (Verdict.NA, None, False),
    ],
)
def test_a_cell_is_stale_past_the_age_unless_it_does_not_apply(verdict, age, stale):
    today = date(2026, 11, 30)
    as_of = None if age is None else today - timedelta(days=age)
    assert freshness.is_stale(verdict, as_of, today=today, days=180) is stale
    # the database filter is the same rule
    traits = {Verdict.NONE: {"none": True}, Verdict.NA: {"na": True}}.get(verdict, {})
    cell = CellFactory(**traits)
    Cell.objects.filter(pk=cell.pk).update(evidence_as_of=as_of)
    matched = Cell.objects.filter(freshness.stale_q(today=today, days=180), pk=cell.pk).exists()
    assert matched is stale


def test_ages_read_as_words():
    today = date(2026, 11, 30)
    assert freshness.age_text(today, today=today) == "checked today"
    assert freshness.age_text(date(2026, 11, 29), today=today) == "checked yesterday"
    assert freshness.age_text(date(2026, 9, 16), today=today) == "checked 75 days ago"
    assert freshness.age_text(None, today=today) == "no check date"
    assert freshness.age_text(date(2026, 12, 1), today=today) == "checked today"


# ------------------------------------------------------------------ the dates written


def test_imported_cells_and_quotes_are_checked_as_of_the_pages(seeded_arena):
    cells = Cell.objects.filter(story__arena=seeded_arena)
    assert set(cells.values_list("evidence_as_of", flat=True)) == {SEED_AS_OF}
    quotes = Evidence.objects.filter(cell__story__arena=seeded_arena)
    assert quotes.exists()
    assert set(quotes.values_list("checked_on", flat=True)) == {SEED_AS_OF}


def test_an_admin_edit_checks_the_cell_on_its_day_and_an_import_does_not(on_day):
    cell = CellFactory()
    Cell.objects.filter(pk=cell.pk).update(evidence_as_of=date(2026, 1, 1))
    cell.refresh_from_db()
    on_day(date(2026, 11, 30))
    cell_correct(cell=cell, value=CellValue(Verdict.PARTIAL, Proof.CLAIMED, 5))
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == date(2026, 11, 30)
    # an import's change keeps the date (the import dates its cells by the pages)
    other = CellFactory()
    Cell.objects.filter(pk=other.pk).update(evidence_as_of=date(2026, 1, 1))
    other.refresh_from_db()
    cell_correct(cell=other, value=CellValue(Verdict.NONE, None, 0), kind=CellChange.Kind.IMPORT)
    assert Cell.objects.get(pk=other.pk).evidence_as_of == date(2026, 1, 1)


def test_a_quote_added_or_edited_is_checked_that_day_and_the_cell_follows(on_day):
    cell = CellFactory(detail_published=False)
    arena_id = cell.story.arena_id
    before = version(arena_id)
    on_day(date(2026, 5, 1))
    added = evidence_add(
        cell=cell, source="github", quote="It retries.", url="https://example.com/a"
    )
    assert added.checked_on == date(2026, 5, 1)
    stored = Cell.objects.get(pk=cell.pk)
    assert stored.evidence_as_of == date(2026, 5, 1)
    assert stored.detail_published  # the quote shows on the proof page
    assert version(arena_id) > before
    on_day(date(2026, 6, 2))
    assert evidence_update(evidence=added, changes={"quote": "It retries 3 times."}) == ["quote"]
    assert Evidence.objects.get(pk=added.pk).checked_on == date(2026, 6, 2)
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == date(2026, 6, 2)
    # an older date never moves the cell back
    evidence_add(cell=cell, source="docs", quote="Old quote.", checked_on=date(2025, 1, 1))
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == date(2026, 6, 2)


def test_a_quote_is_refused_with_a_message_per_field():
    cell = CellFactory()
    with pytest.raises(ValidationError) as caught:
        evidence_add(cell=cell, source="github", quote="", url="not a url")
    assert set(caught.value.message_dict) == {"quote", "url"}
    assert not Evidence.objects.filter(cell=cell).exists()


# ------------------------------------------------------------------ what the pages show


def test_the_proof_page_says_how_old_the_evidence_is(client, seeded_arena, on_day):
    on_day(date(2026, 11, 30))
    cell = Cell.objects.filter(story__arena=seeded_arena, detail_published=True).first()
    response = client.get(f"/cells/{cell.pk}/")
    html = response.content.decode()
    assert "checked 75 days ago (2026-09-16)" in text_of(response)
    assert '<time datetime="2026-09-16">2026-09-16</time>' in html
    assert "stale" not in text_of(response)


def test_a_page_turns_stale_at_midnight_without_a_write(client, seeded_arena, on_day):
    """Day 180 is fresh; the next day the same page (same content version) is a new page with
    the badge: its ETag moved, so a revalidation does not get the old copy."""
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict=Verdict.FULL).first()
    url = f"/cells/{cell.pk}/"
    on_day(SEED_AS_OF + timedelta(days=180))
    fresh = client.get(url)
    assert "stale" not in text_of(fresh)
    assert client.get(url, HTTP_IF_NONE_MATCH=fresh["ETag"]).status_code == 304
    on_day(SEED_AS_OF + timedelta(days=181))
    stale = client.get(url, HTTP_IF_NONE_MATCH=fresh["ETag"])
    assert stale.status_code == 200 and stale["ETag"] != fresh["ETag"]
    assert "checked 181 days ago (2026-09-16) stale" in text_of(stale)
    # the arena page's matrix marks the cell, the story page's card too
    story = client.get(f"{ARENA}stories/{cell.story_id}/")
    assert f'id="cell-{cell.pk}"' in story.content.decode()
    assert "Evidence checked 181 days ago (2026-09-16) stale" in text_of(story)


def test_the_product_page_gives_its_share_of_stale_cells(client, seeded_arena, on_day):
    product = Product.objects.get(arena=seeded_arena, slug="temporal")
    on_day(date(2026, 11, 30))
    text = text_of(client.get(f"{ARENA}products/temporal/"))
    judged = Cell.objects.filter(product=product).exclude(verdict=Verdict.NA).count()
    assert judged == 49  # (53 stories, 4 of them n/a: an n/a cell is never stale)
    assert f"0 of {judged} judged cells (0%) have evidence older than 180 days." in text
    on_day(SEED_AS_OF + timedelta(days=181))
    text = text_of(client.get(f"{ARENA}products/temporal/"))
    assert f"stale {judged} of {judged} judged cells (100%) have evidence older than 180" in text
    # the selector the leaderboard uses counts the same
    counts = arena_stale_counts(arena=seeded_arena, today=freshness.today())
    assert counts[product.pk] == (judged, judged)


def test_stale_counts_are_one_query_and_follow_the_dates(
    big_arena, django_assert_num_queries, settings
):
    today = big_arena.evidence_as_of
    with django_assert_num_queries(1):
        counts = arena_stale_counts(arena=big_arena, today=today)
    judged = dict(
        Cell.objects.filter(story__arena=big_arena)
        .exclude(verdict=Verdict.NA)
        .values_list("product_id")
        .annotate(n=Count("pk"))
    )
    assert len(counts) == 30 and {pid: cells for pid, (_, cells) in counts.items()} == judged
    by_rule = {}
    for pid, verdict, as_of in Cell.objects.filter(story__arena=big_arena).values_list(
        "product_id", "verdict", "evidence_as_of"
    ):
        by_rule[pid] = by_rule.get(pid, 0) + freshness.is_stale(
            verdict, as_of, today=today, days=180
        )
    assert {pid: stale for pid, (stale, _) in counts.items()} == by_rule
    total = sum(s for s, _ in counts.values())
    assert 0 < total < 30 * 300 / 4  # the generated arena has some stale cells, not most
    # a shorter age makes more of them stale
    settings.EVIDENCE_STALE_DAYS = 30
    shorter = arena_stale_counts(arena=big_arena, today=today)
    assert sum(s for s, _ in shorter.values()) > total


def test_the_matrix_filters_to_stories_with_a_stale_cell_among_the_products_shown(
    big_arena, django_assert_max_num_queries
):
    big_arena = arena_get(slug="big")
    products = arena_product_list(arena=big_arena)[:3]
    filters = MatrixFilters(stale="1")
    assert filters.active and filters.as_params() == {"stale": "1"}
    with django_assert_max_num_queries(2):
        matrix = arena_matrix(arena=big_arena, filters=filters, products=products)
    today, days = freshness.today(), freshness.stale_days()
    assert 0 < matrix.shown < 300
    for row in matrix.rows:
        assert any(
            freshness.is_stale(c.verdict, c.evidence_as_of, today=today, days=days)
            for c in row.cells
        )
    everything = arena_matrix(arena=big_arena, products=products)
    with_stale = [
        r.story.pk
        for r in everything.rows
        if any(
            freshness.is_stale(c.verdict, c.evidence_as_of, today=today, days=days) for c in r.cells
        )
    ]
    assert [r.story.pk for r in matrix.rows] == with_stale


def test_the_matrix_marks_stale_cells_in_words(client, big_arena):
    html = client.get("/arenas/big/").content.decode()
    marks = re.findall(
        r'<small class="stale-mark" title="stale: evidence checked (\d+) days ago', html
    )
    assert marks and all(int(days) > 180 for days in marks)
    # the filter is in the form, a plain checkbox
    assert 'type="checkbox" id="f-stale" name="stale" value="1"' in html


# ------------------------------------------------------------------ the API


def test_the_api_gives_each_cell_its_evidence_date(client, seeded_arena):
    data = client.get(f"/api{ARENA}matrix/").json()
    cell = next(iter(data["stories"][0]["cells"].values()))
    assert cell["evidence_as_of"] == "2026-09-16"


def test_the_schema_names_the_freshness_fields(client):
    schema = client.get("/api/schema/?format=json").json()
    parts = schema["components"]["schemas"]
    assert "evidence_as_of" in parts["MatrixCell"]["properties"]
    assert {"url", "checked_on"} <= set(parts["Evidence"]["properties"])
    assert {"accept_source", "evidence_quote"} <= set(parts["Uphold"]["properties"])
    assert "source_url" in parts["FlagCreate"]["properties"]


def test_evidence_with_a_link_shows_it_for_visitors_to_follow_safely(client, on_day):
    cell = CellFactory(detail_published=True)
    EvidenceFactory(cell=cell, url="https://example.com/proof", checked_on=date(2026, 3, 1))
    html = client.get(f"/cells/{cell.pk}/").content.decode()
    assert (
        '<a class="evidence-link" href="https://example.com/proof" rel="nofollow ugc noopener">'
        in html
    )
    assert '<time class="evidence-checked" datetime="2026-03-01">checked 2026-03-01</time>' in html


def test_the_arena_page_filters_to_stale_stories_in_place_and_plainly(
    client, big_arena, django_assert_max_num_queries
):
    whole = client.get("/arenas/big/?stale=1")
    assert 'id="f-stale" name="stale" value="1" checked' in whole.content.decode()
    shown = int(re.search(r"(\d+)/300 stories shown", text_of(whole)).group(1))
    assert 0 < shown < 300
    with django_assert_max_num_queries(6):  # as "htmx matrix" in tests/web/pages/test_pages.py
        fragment = client.get(
            "/arenas/big/?stale=1", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="matrix"
        )
    html = fragment.content.decode()
    assert f">{shown}/300 stories shown<" in html
    # every row shown has a stale mark; links that load a category carry the filter
    assert "stale=1" in html
    rows = re.findall(r"<tr><th scope=\"row\".*?</tr>", html)
    assert rows and all("stale-mark" in row for row in rows)
