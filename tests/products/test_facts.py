"""What a product is (products.facts): edited in the admin (versioned), checked the same way by
every writer, left alone by a page import, and shown as unknown where nobody stated it."""

from __future__ import annotations

import io
import json
import re

import pytest

from arena.models import Arena
from core.text import format_figure
from products.facts import licence_problem, open_source
from products.models import Product
from tests.forms import page_form


@pytest.mark.parametrize(
    ("licence", "problem"),
    [
        ("", None),
        ("MIT", None),
        ("Apache-2.0 OR MIT", None),
        ("(MIT AND BSD-3-Clause) OR Apache-2.0", None),
        ("GPL-2.0-only WITH Classpath-exception-2.0", None),
        ("LicenseRef-Proprietary", None),
        ("MPL-2.0+", None),  # "or any later version"
        ("MIT-ish", "'MIT-ish' is not an SPDX licence identifier"),
        ("mit", "'mit' is not an SPDX licence identifier"),
        ("MIT OR", "is an unfinished SPDX licence expression"),
        ("(MIT", "is an unfinished SPDX licence expression"),
        ("MIT Apache-2.0", "'Apache-2.0' is out of place"),
        ("MIT WITH Apache-2.0", "'Apache-2.0' is not an SPDX licence exception"),
        ("M" * 101, "is longer than 100 characters"),
    ],
)
def test_a_licence_is_an_spdx_expression_the_site_knows(licence, problem):
    found = licence_problem(licence)
    assert found == problem if problem is None else problem in (found or "")


def test_open_source_reads_the_osi_list():
    assert open_source("") is None
    assert open_source("Apache-2.0") is True
    assert open_source("SSPL-1.0") is False
    assert open_source("BUSL-1.1 OR MIT") is True  # either licence may be taken
    assert open_source("MIT AND SSPL-1.0") is False
    assert open_source("LicenseRef-Proprietary") is False


def _version(arena: Arena) -> int:
    return Arena.objects.values_list("content_version", flat=True).get(pk=arena.pk)


@pytest.mark.django_db
def test_an_editor_states_a_products_facts_in_the_admin(admin_client, seeded_arena):
    hatchet = Product.objects.get(arena=seeded_arena, slug="hatchet")
    url = f"/admin/products/product/{hatchet.pk}/change/"
    before, version = _version(seeded_arena), hatchet.version
    data = page_form(
        admin_client,
        url,
        "product_form",
        website="https://hatchet.example",
        licence="MIT",
        languages="Go, Python SDK, TypeScript SDK, Go",
        hosting="both",
        pricing="free to self-host; cloud by usage",
        first_release="2023-12-01",
        latest_version="0.60.1",
    )
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    hatchet.refresh_from_db()
    assert (hatchet.website, hatchet.licence, hatchet.hosting) == (
        "https://hatchet.example",
        "MIT",
        "both",
    )
    assert hatchet.languages == ["Go", "Python SDK", "TypeScript SDK"]
    assert str(hatchet.first_release) == "2023-12-01" and hatchet.latest_version == "0.60.1"
    assert hatchet.version == version + 1 and hatchet.edited_at is not None
    assert _version(seeded_arena) > before  # the product's page shows them
    # the form shows the list as it was typed, and saving it again changes nothing
    again = page_form(admin_client, url, "product_form")
    assert again["languages"] == "Go, Python SDK, TypeScript SDK"
    assert admin_client.post(url, again).status_code == 302
    hatchet.refresh_from_db()
    assert hatchet.version == version + 1


@pytest.mark.django_db
def test_the_admin_refuses_an_unknown_licence_with_a_message(admin_client, seeded_arena):
    hatchet = Product.objects.get(arena=seeded_arena, slug="hatchet")
    url = f"/admin/products/product/{hatchet.pk}/change/"
    data = page_form(admin_client, url, "product_form", licence="MIT-ish", hosting="cloud")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    page = response.content.decode()
    assert "is not an SPDX licence identifier" in page
    assert "Select a valid choice. cloud is not one of the available choices." in page
    hatchet.refresh_from_db()
    assert hatchet.licence == "" and hatchet.hosting == ""


@pytest.mark.django_db
def test_a_stale_facts_form_is_refused(admin_client, seeded_arena):
    hatchet = Product.objects.get(arena=seeded_arena, slug="hatchet")
    url = f"/admin/products/product/{hatchet.pk}/change/"
    first = page_form(admin_client, url, "product_form", licence="MIT")
    second = page_form(admin_client, url, "product_form", licence="Apache-2.0")
    assert admin_client.post(url, first).status_code == 302
    response = admin_client.post(url, second)
    assert response.status_code == 200  # shown again with what changed meanwhile
    hatchet.refresh_from_db()
    assert hatchet.licence == "MIT"


@pytest.mark.django_db
def test_the_service_refuses_an_unknown_licence_whoever_writes(seeded_arena):
    from django.core.exceptions import ValidationError

    from products.services import product_update

    hatchet = Product.objects.get(arena=seeded_arena, slug="hatchet")
    with pytest.raises(ValidationError, match="'MIT OR' is an unfinished SPDX licence expression"):
        product_update(product=hatchet, changes={"licence": "MIT OR"})
    hatchet.refresh_from_db()
    assert hatchet.licence == ""


# ---------------------------------------------------------------- shown on the pages

ARENA = "/arenas/durable-execution-engines/"


def _fact(html: str, key: str) -> str:
    """The text of the fact row ``key`` (its tags dropped)."""
    m = re.search(rf'id="fact-{key}">(.*?)</(?:div|tr)>', html, re.S)
    assert m, f"no fact row {key}"
    return " ".join(re.sub(r"<[^>]+>", " ", m.group(1)).split())


def _state_facts(slug: str, **facts: object) -> None:
    from products.services import product_update

    product_update(product=Product.objects.get(slug=slug), changes=facts)


@pytest.mark.django_db
def test_the_product_page_lists_its_facts_and_says_unknown_for_the_unstated(client, seeded_arena):
    _state_facts(
        "hatchet",
        repository="https://code.example/hatchet",
        licence="MIT",
        hosting="both",
        languages=["Go", "Python SDK"],
    )
    html = client.get(ARENA + "products/hatchet/").content.decode()
    assert _fact(html, "repository") == "Repository https://code.example/hatchet"
    assert '<a href="https://code.example/hatchet" rel="nofollow noopener">' in html
    assert _fact(html, "licence") == "Licence (SPDX) MIT open source (OSI-approved)"
    assert _fact(html, "hosting") == "Hosting self-hosted and managed"
    assert _fact(html, "languages") == "Languages and SDKs Go, Python SDK"
    # nobody stated these: unknown, never a guess (and never a link)
    for key, label in [
        ("website", "Website"),
        ("pricing", "Pricing"),
        ("first-release", "First release"),
    ]:
        assert _fact(html, key) == f"{label} unknown"
    # the pages' own figures, with their date; the free-tier mark the pages give
    hatchet = Product.objects.get(slug="hatchet")
    as_of = hatchet.popularity_as_of.isoformat()
    assert _fact(html, "stars") == f"GitHub stars {format_figure(hatchet.stars)} as of {as_of}"
    assert hatchet.tier == "free-tier" and _fact(html, "free-tier") == "Free tier yes"


@pytest.mark.django_db
def test_a_product_without_a_free_tier_mark_reads_unknown_not_no(client, seeded_arena):
    _state_facts("dbos", tier="")  # (every seed product carries the pages' mark)
    html = client.get(ARENA + "products/dbos/").content.decode()
    assert _fact(html, "free-tier") == "Free tier unknown"


@pytest.mark.django_db
def test_head_to_head_and_compare_set_the_facts_side_by_side(client, seeded_arena):
    _state_facts("inngest", licence="SSPL-1.0", hosting="both")
    _state_facts("temporal", licence="MIT")
    html = client.get(ARENA + "vs/inngest-vs-temporal/").content.decode()
    assert _fact(html, "licence") == (
        "Licence (SPDX) SSPL-1.0 not open source MIT open source (OSI-approved)"
    )
    assert _fact(html, "hosting") == "Hosting self-hosted and managed unknown"
    html = client.get(ARENA + "compare/?products=temporal,inngest,hatchet").content.decode()
    assert _fact(html, "licence") == (
        "Licence (SPDX) MIT open source (OSI-approved) SSPL-1.0 not open source unknown"
    )
    head = re.search(r'class="simple facts-table">\s*<thead>(.*?)</thead>', html, re.S)
    assert head and re.findall(r"<th scope=\"col\">([^<]+)</th>", head.group(1)) == [
        "Fact",
        "Temporal",
        "Inngest",
        "Hatchet",
    ]


# ---------------------------------------------------------------- the API, the imports


@pytest.mark.django_db
def test_the_apis_arena_states_each_products_facts_null_where_unknown(client, seeded_arena):
    _state_facts("hatchet", licence="MIT", languages=["Go"], hosting="self-hosted")
    body = client.get(ARENA.replace("/arenas/", "/api/arenas/")).json()
    products = {p["slug"]: p for p in body["products"]}
    assert {k: products["hatchet"][k] for k in ("licence", "languages", "hosting", "website")} == {
        "licence": "MIT",
        "languages": ["Go"],
        "hosting": "self-hosted",
        "website": None,
    }
    assert products["dbos"]["licence"] is None and products["dbos"]["languages"] == []
    assert products["dbos"]["tier"] == "free-tier"


@pytest.mark.django_db
def test_a_page_import_leaves_the_facts_alone(seeded_arena, seed_files):
    from django.core.management import call_command

    _state_facts("hatchet", licence="MIT", pricing="by usage")
    call_command("import_arena_pages", *seed_files, stdout=io.StringIO())
    hatchet = Product.objects.get(slug="hatchet")
    assert (hatchet.licence, hatchet.pricing) == ("MIT", "by usage")


@pytest.mark.django_db
def test_an_arena_file_replaces_the_source_list_and_a_page_import_keeps_it(tmp_path, seed_files):
    from django.core.management import call_command

    from arena import dataformat
    from arena.models import Source
    from tests.arena.test_arena_file import EXAMPLE

    def imported(doc: dict) -> str:
        path = tmp_path / "arena.json"
        path.write_text(dataformat.document_text(doc), encoding="utf-8")
        out = io.StringIO()
        call_command("import_arena_json", str(path), stdout=out)
        return out.getvalue()

    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    imported(doc)
    arena = Arena.objects.get(slug="team-wikis")
    assert list(Source.objects.filter(arena=arena).values_list("key", flat=True)) == [
        "kite-docs-2",
        "quillbase-docs-1",
    ]
    version = _version(arena)
    doc["sources"] = [dict(doc["sources"][1], title="Quillbase docs: editing")]
    out = imported(doc)
    assert "source: 1 changed, 1 removed" in out
    assert list(Source.objects.filter(arena=arena).values_list("key", "title")) == [
        ("quillbase-docs-1", "Quillbase docs: editing")
    ]
    assert _version(arena) > version  # the pages that show sources change
    assert "source" not in imported(doc)  # twice = once
