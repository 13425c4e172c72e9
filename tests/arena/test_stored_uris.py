"""Every stored web address is a URI, as the API's schema says (``format: uri``): written through a
form, the API or an import, an address with quotes, spaces or non-ASCII characters is stored
percent-encoded, one that is no http(s) address is refused, and the data migration mends the
addresses stored before the rule."""

import importlib
import json

import jsonschema_rs
import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.test import Client

from arena.models import Source
from core.uris import uri_encode, uri_fixed
from flags.models import Flag
from products.models import Product
from stories.models import Cell, Evidence
from stories.services import evidence_new
from stories.values import Quote

URI = jsonschema_rs.validator_for({"type": "string", "format": "uri"}, validate_formats=True)
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
migration = importlib.import_module("stories.migrations.0012_stored_addresses_are_uris")


@pytest.mark.parametrize(
    "given, stored",
    [
        ('https://example.com/a"b', "https://example.com/a%22b"),
        ("https://example.com/a b?q=<1>#top#2", "https://example.com/a%20b?q=%3C1%3E#top%232"),
        ("https://bücher.example/ä", "https://xn--bcher-kva.example/%C3%A4"),
        ("https://example.com/100%/x%41", "https://example.com/100%25/x%41"),
        ("https://example.com/a\nb\x01", "https://example.com/a%0Ab%01"),
        ("https://example.com/docs?x=1&y=[2]", "https://example.com/docs?x=1&y=%5B2%5D"),
        ("https://example.com/plain", "https://example.com/plain"),
        ("ftp://example.com/file", ""),
        ("javascript:alert(1)", ""),
        ("https://exa mple.com/", ""),
        ("https://", ""),
    ],
)
def test_an_address_is_encoded_or_emptied(given, stored):
    assert uri_fixed(given) == stored
    assert stored == "" or URI.is_valid(stored)  # (an empty address is left out: no link)
    assert uri_encode(uri_encode(given)) == uri_encode(given)  # encoding twice changes nothing


@pytest.mark.django_db
def test_a_quote_s_address_is_stored_encoded_and_a_bad_one_refused():
    evidence = evidence_new(Quote("docs", "It pauses.", 'https://example.com/say "hi"'))
    assert evidence.url == "https://example.com/say%20%22hi%22"
    with pytest.raises(ValidationError) as refused:
        evidence_new(Quote("docs", "It pauses.", "file:///etc/passwd"))
    assert refused.value.message_dict == {"url": ["Enter a valid http(s) address."]}


@pytest.mark.django_db
def test_a_bulk_write_stores_the_address_encoded(seeded_arena):
    """An import writes its quotes and sources in bulk, without cleaning: the field encodes."""
    cell = Cell.objects.filter(story__arena=seeded_arena).first()
    Evidence.objects.bulk_create(
        [Evidence(cell=cell, position=99, source="docs", quote="q", url='https://e.com/"x"')]
    )
    source = Source.objects.create(arena=seeded_arena, key="odd-1", url="https://e.com/x")
    Source.objects.filter(pk=source.pk).update(url="https://e.com/a b")
    assert Evidence.objects.get(cell=cell, position=99).url == "https://e.com/%22x%22"
    assert Source.objects.values_list("url", flat=True).get(pk=source.pk) == "https://e.com/a%20b"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "given, status, stored",
    [
        ('https://example.com/notes"v2"', 201, "https://example.com/notes%22v2%22"),
        ("https://example.com/ü", 201, "https://example.com/%C3%BC"),
        ("ftp://example.com/notes", 400, None),
        ("javascript:alert(1)", 400, None),
    ],
)
def test_a_flag_s_source_address_is_stored_and_answered_as_a_uri(
    seeded_arena, settings, given, status, stored
):
    settings.SECURE_SSL_REDIRECT = False
    cell = Cell.objects.filter(story__arena=seeded_arena).first()
    body = {"cell": cell.pk, "reason": "other", "explanation": EXPLANATION, "source_url": given}
    response = Client().post("/api/flags/", json.dumps(body), content_type="application/json")
    assert response.status_code == status, response.content
    if stored is None:
        assert "source_url" in response.json() and not Flag.objects.exists()
        return
    assert response.json()["source_url"] == stored
    assert Flag.objects.get().source_url == stored


def historical_apps():
    """The models as the migration before the rule sees them: plain URLFields, nothing encoded."""
    loader = MigrationLoader(connection)
    return loader.project_state(
        [(app, name) for app, name in migration.Migration.dependencies]
    ).apps


@pytest.mark.django_db
def test_the_migration_mends_the_addresses_stored_before(seeded_arena):
    old = historical_apps()
    cell = Cell.objects.filter(story__arena=seeded_arena).first()
    evidence = old.get_model("stories", "Evidence").objects.create(
        cell_id=cell.pk, position=99, source="docs", quote="q", url='https://e.com/a "b"'
    )
    source = old.get_model("arena", "Source").objects.create(
        arena_id=seeded_arena.pk, key="odd-1", url="ftp://e.com/x"
    )
    products = old.get_model("products", "Product")._meta.default_manager
    product = Product.objects.filter(arena=seeded_arena).first()
    products.filter(pk=product.pk).update(
        website="https://e.com/ü", repository="https://e.com/ok", documentation="mailto:x@e.com"
    )
    Client().post(
        "/api/flags/",
        json.dumps({"cell": cell.pk, "reason": "other", "explanation": EXPLANATION}),
        content_type="application/json",
    )
    flag = Flag.objects.get()
    old.get_model("flags", "Flag").objects.filter(pk=flag.pk).update(source_url="https://e.com/<x>")

    migration.fix_addresses(old, None)

    assert Evidence.objects.get(pk=evidence.pk).url == "https://e.com/a%20%22b%22"
    assert Source.objects.get(pk=source.pk).url == ""  # another scheme: no link
    product = Product.all_objects.get(pk=product.pk)
    assert (product.website, product.repository, product.documentation) == (
        "https://e.com/%C3%BC",
        "https://e.com/ok",
        "",
    )
    assert Flag.objects.get(pk=flag.pk).source_url == "https://e.com/%3Cx%3E"


def _arena_file(tmp_path, website: str, quote_url: str):
    from tests.arena.test_import_checked import example, write

    doc = example()
    doc["products"][0]["website"] = website
    doc["cells"][0]["evidence"][0]["url"] = quote_url
    return write(tmp_path / "addresses.json", doc), doc


@pytest.mark.django_db
def test_an_arena_file_stores_its_addresses_as_uris_and_imports_again_unchanged(tmp_path):
    from tests.arena.test_import_checked import run

    path, doc = _arena_file(tmp_path, 'https://q.example/a "b"', "https://q.example/doc s")
    assert run(path)[1] is None
    product = Product.objects.get(slug=doc["products"][0]["slug"])
    assert product.website == "https://q.example/a%20%22b%22"
    assert Evidence.objects.filter(url="https://q.example/doc%20s").exists()
    # the file's raw spelling and the stored encoded one are the same address: nothing to change
    out, error = run(path, "--check")
    assert error is None
    assert "changed" not in out


@pytest.mark.django_db
def test_an_arena_file_with_an_address_that_is_no_uri_is_refused_at_its_pointer(tmp_path):
    from tests.arena.test_import_checked import both_refuse

    path, _ = _arena_file(tmp_path, "https://exa mple.com/", "https://q.example/ok")
    message = both_refuse(path)
    assert "/products/0/website" in message
    assert "Enter a valid http(s) address." in message
