"""What programs read, as their own validators read it: the OpenAPI document through
``openapi_spec_validator``, the JSON export against the JSON Schema the site publishes for it,
the CSV export through the ``csv`` module (the header docs/contract.md documents, one row per
cell, each value what the database holds)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from django.conf import settings
from openapi_spec_validator import validate

from stories.models import Cell

pytestmark = pytest.mark.django_db

CONTRACT = Path(settings.BASE_DIR) / "docs/contract.md"


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_openapi_document_is_valid_openapi(client, seeded_arena):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    document = yaml.safe_load(response.content)
    validate(document)
    assert "/api/arenas/" in document["paths"]
    as_json = client.get("/api/schema/?format=json")
    assert as_json.status_code == 200
    validate(json.loads(as_json.content))


def published_schema_url() -> str:
    """The arena file's schema address as docs/contract.md publishes it."""
    found = re.search(r"`(/schemas/arena-v\d+\.schema\.json)`", CONTRACT.read_text())
    assert found, "docs/contract.md names no arena file schema"
    return found.group(1)


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_the_json_export_validates_against_its_published_schema(client, request, size):
    arena = request.getfixturevalue(size)
    schema_response = client.get(published_schema_url())
    assert schema_response.status_code == 200
    assert schema_response["Content-Type"] == "application/schema+json"
    schema = json.loads(schema_response.content)
    jsonschema.Draft202012Validator.check_schema(schema)
    document = json.loads(body(client.get(f"/arenas/{arena.slug}/export.json")))
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
    assert not errors, errors[:20]
    # the check can fail: the same document with a cell's verdict made up does not validate
    document["cells"][0]["verdict"] = "maybe"
    assert list(validator.iter_errors(document))


def documented_csv_header() -> list[str]:
    found = re.search(r"the CSV has a header row\s+`([a-z_,]+)`", CONTRACT.read_text())
    assert found, "docs/contract.md documents no CSV header"
    return found.group(1).split(",")


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_the_csv_export_reads_back_as_documented(client, request, size):
    arena = request.getfixturevalue(size)
    text = body(client.get(f"/arenas/{arena.slug}/export.csv")).decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader)
    assert header == documented_csv_header()
    rows = [dict(zip(header, row, strict=True)) for row in reader]
    cells = {
        c.pk: c
        for c in Cell.objects.filter(
            story__arena=arena, story__retired_at__isnull=True, product__retired_at__isnull=True
        ).select_related("story", "product")
    }
    # one row per cell, each cell once
    assert sorted(int(r["cell_id"]) for r in rows) == sorted(cells)
    for row in rows:
        cell = cells[int(row["cell_id"])]
        assert int(row["story_id"]) == cell.story.pk
        assert row["product"] == cell.product.slug
        assert row["product_name"] == cell.product.name
        assert row["verdict"] == cell.verdict
        assert row["proof"] == (cell.proof or "")
        assert row["quality"] == ("" if cell.quality is None else str(cell.quality))
        assert int(row["weight"]) == cell.story.weight
        story = cell.story.text
        assert row["story"] == ("'" + story if story.startswith(("=", "+", "-", "@")) else story)


@pytest.mark.parametrize("document", ["disputes", "verify"])
def test_the_other_json_documents_validate_against_their_published_schemas(client, site, document):
    found = re.search(rf"`(/schemas/{document}-v\d+\.schema\.json)`", CONTRACT.read_text())
    assert found, f"docs/contract.md publishes no schema for {document}.json"
    response = client.get(found.group(1))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    assert response["Cache-Control"].startswith("public") and response["ETag"]
    schema = json.loads(response.content)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    data = client.get(f"/arenas/{site['arena'].slug}/{document}.json").json()
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
    assert not errors, errors[:20]
    listed = data["disputes"] if document == "disputes" else data["cells"]
    assert listed, "nothing listed: the schema checked no item"
    # the check can fail: a made-up field is refused
    listed[0]["made_up"] = 1
    assert list(validator.iter_errors(data))


def test_an_unknown_schema_is_a_404(client, db):
    assert client.get("/schemas/nothing-v1.schema.json").status_code == 404
