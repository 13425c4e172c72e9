"""``/arenas/<arena>/export.json`` and ``export.csv``: what a data user downloads agrees with the
API, holds no flag or personal data, is streamed and cached like the pages, and costs the same few
queries whatever the arena's size."""

import csv
import io
import json

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.urls import reverse

from arena import dataformat
from arena.selectors.export import CSV_COLUMNS
from flags.forms import FlagForm
from flags.services import flag_submit
from stories.models import Cell
from stories.services import cell_edit
from web.http import pagecache
from web.http.clients import client_hash
from web.http.pagecache import recent_pages

pytestmark = pytest.mark.django_db

# arena_get, the page cache's version, then the export's own reads (eight: the source list is one)
JSON_QUERIES = 10
CSV_QUERIES = 3


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body(response).decode("utf-8"))))


def test_the_json_export_is_what_export_arena_writes(client, seeded_arena, tmp_path):
    response = client.get(f"/arenas/{seeded_arena.slug}/export.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'inline; filename="{seeded_arena.slug}.json"'
    assert 'rel="license"' in response["Link"]
    path = tmp_path / "cli.json"
    call_command("export_arena", seeded_arena.slug, "-o", str(path), stderr=io.StringIO())
    assert body(response) == path.read_bytes()


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_both_exports_agree_with_the_api(client, request, size):
    arena = request.getfixturevalue(size)
    matrix = client.get(f"/api/arenas/{arena.slug}/matrix/").json()
    stories, page = matrix["stories"], matrix
    while page["next"]:  # (the API's matrix is paged: every page)
        page = client.get(page["next"]).json()
        stories += page["stories"]
    api = {
        (story["id"], slug): (story, cell)
        for story in stories
        for slug, cell in story["cells"].items()
    }
    rows = csv_rows(client.get(f"/arenas/{arena.slug}/export.csv"))
    assert len(rows) == len(api) == matrix["count"] * len(matrix["products"])
    for row in rows:
        story, cell = api[int(row["story_id"]), row["product"]]
        assert int(row["cell_id"]) == cell["id"]
        assert row["verdict"] == cell["verdict"]
        assert row["proof"] == (cell["proof"] or "")
        assert row["quality"] == ("" if cell["quality"] is None else str(cell["quality"]))
        assert row["evidence_as_of"] == (cell["evidence_as_of"] or "")
        assert (row["story"], row["category"], row["persona"]) == (
            story["text"],
            story["category"],
            story["persona"],
        )
        assert row["subgroup"] == (story["group"] or "") and int(row["weight"]) == story["weight"]
    # the JSON holds the same cells, in the same (matrix) order
    doc = json.loads(body(client.get(f"/arenas/{arena.slug}/export.json")))
    texts = {s["key"]: s["text"] for s in doc["stories"]}
    assert [
        (texts[c["story"]], c["product"], c["verdict"], c["quality"]) for c in doc["cells"]
    ] == [
        (r["story"], r["product"], r["verdict"], int(r["quality"]) if r["quality"] else None)
        for r in rows
    ]
    assert [p["slug"] for p in doc["products"]] == matrix["products"]


def test_the_csv_counts_each_cells_evidence(client, seeded_arena):
    rows = csv_rows(client.get(f"/arenas/{seeded_arena.slug}/export.csv"))
    assert list(rows[0]) == list(CSV_COLUMNS)
    by_cell = {int(r["cell_id"]): r for r in rows}
    detailed = Cell.objects.filter(story__arena=seeded_arena, detail_published=True).first()
    row = by_cell[detailed.pk]
    assert int(row["evidence_count"]) == detailed.evidence.count() > 0
    assert row["rationale"] == detailed.rationale
    # a cell whose detail is not published shows no rationale, as on the pages
    hidden = Cell.objects.filter(story__arena=seeded_arena, detail_published=False).first()
    Cell.objects.filter(pk=hidden.pk).update(rationale="a draft nobody published")
    caches["pages"].clear()  # (the write above went round the services)
    recent_pages().clear()
    rows = csv_rows(client.get(f"/arenas/{seeded_arena.slug}/export.csv"))
    assert next(r for r in rows if int(r["cell_id"]) == hidden.pk)["rationale"] == ""


def test_no_flag_and_no_personal_data_is_exported(client, seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena).first()
    flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": "other",
                "explanation": "PRIVATE-EXPLANATION of the reporter",
                "email": "reporter@example.com",
            }
        ),
        client=client_hash("10.1.2.3"),
    )
    for export in ("export.json", "export.csv"):
        text = body(client.get(f"/arenas/{seeded_arena.slug}/{export}")).decode()
        assert "reporter@example.com" not in text
        assert "PRIVATE-EXPLANATION" not in text
        assert "flag" not in text.lower().split("\n", 1)[0]  # no flag column or section


def test_a_text_a_spreadsheet_would_run_is_defused(client, seeded_arena, moderator):
    cell = Cell.objects.filter(story__arena=seeded_arena, detail_published=True).first()
    cell_edit(
        cell=cell,
        changes={"rationale": '=HYPERLINK("http://evil.example","click")'},
        base_version=cell.version,
        by=moderator,
        note="test",
    )
    rows = csv_rows(client.get(f"/arenas/{seeded_arena.slug}/export.csv"))
    row = next(r for r in rows if int(r["cell_id"]) == cell.pk)
    assert row["rationale"] == '\'=HYPERLINK("http://evil.example","click")'
    doc = json.loads(body(client.get(f"/arenas/{seeded_arena.slug}/export.json")))
    assert '=HYPERLINK("http://evil.example","click")' in [c["rationale"] for c in doc["cells"]]


@pytest.mark.parametrize("export", ["export.json", "export.csv"])
def test_exports_are_streamed_then_cached_by_content_version(
    client, seeded_arena, moderator, export
):
    url = f"/arenas/{seeded_arena.slug}/{export}"
    first = client.get(url)
    assert first.streaming  # sent as it is written
    content = body(first)
    assert first["Cache-Control"].startswith("public, max-age=")
    assert "Set-Cookie" not in first and first.cookies == {}
    again = client.get(url)
    assert not again.streaming and again.content == content  # kept once sent whole
    assert again["ETag"] == first["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    head = client.head(url)
    assert head.status_code == 200 and body(head) == b""
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="none").first()
    cell_edit(
        cell=cell,
        changes={"verdict": "partial", "proof": "claimed", "quality": 3},
        base_version=cell.version,
        by=moderator,
        note="Found in the docs",
    )
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert body(changed) != content


def test_an_export_longer_than_the_kept_limit_is_streamed_every_time(
    client, seeded_arena, monkeypatch
):
    """Past ``KEPT_STREAM_BYTES`` a stream is never held whole to be kept: each request streams
    it again (the HTTP cache in front keeps it), and the render lock is let go each time."""
    url = f"/arenas/{seeded_arena.slug}/export.json"
    monkeypatch.setattr(pagecache, "KEPT_STREAM_BYTES", 100_000)
    first = client.get(url)
    content = body(first)
    assert len(content) > 100_000
    again = client.get(url)
    assert again.streaming and body(again) == content and again["ETag"] == first["ETag"]
    monkeypatch.setattr(pagecache, "KEPT_STREAM_BYTES", len(content))  # just within it: kept
    body(client.get(url))
    assert not client.get(url).streaming


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_export_queries_do_not_grow_with_the_arena(
    client, request, size, django_assert_max_num_queries
):
    arena = request.getfixturevalue(size)
    with django_assert_max_num_queries(JSON_QUERIES):
        body(client.get(f"/arenas/{arena.slug}/export.json"))
    with django_assert_max_num_queries(CSV_QUERIES):
        body(client.get(f"/arenas/{arena.slug}/export.csv"))


@pytest.mark.parametrize("export", ["export.json", "export.csv"])
def test_an_unknown_arena_has_no_export(client, export, db):
    assert client.get(f"/arenas/nowhere/{export}").status_code == 404


def test_the_arena_page_links_the_exports_with_the_licence(client, seeded_arena):
    html = client.get(seeded_arena.get_absolute_url()).content.decode()
    assert f'href="{reverse("arena-export-json", args=[seeded_arena.slug])}"' in html
    assert f'href="{reverse("arena-export-csv", args=[seeded_arena.slug])}"' in html
    assert 'rel="license" href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>' in html


def test_the_format_schema_is_served_as_shipped(client, db):
    response = client.get("/schemas/arena-v1.schema.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    assert json.loads(response.content) == dataformat.schema()
    assert response["Cache-Control"].startswith("public") and response["ETag"]
    assert (
        client.get("/schemas/arena-v1.schema.json", HTTP_IF_NONE_MATCH=response["ETag"]).status_code
        == 304
    )


def test_the_arena_page_links_the_format_schema(client, seeded_arena):
    html = client.get(seeded_arena.get_absolute_url()).content.decode()
    assert 'href="/schemas/arena-v1.schema.json"' in html


@pytest.mark.parametrize("export", ["export.json", "export.csv"])
def test_an_export_with_a_query_string_is_sent_to_its_bare_address(client, seeded_arena, export):
    url = f"/arenas/{seeded_arena.slug}/{export}"
    response = client.get(f"{url}?cachebuster=1&%ff=2")
    assert response.status_code == 301 and response["Location"] == url
