"""One slug rule (``core.text.slug_problem``): Django's slug, matched against the whole value, and
for a product no word ``vs`` between hyphens, so that every pair of products has exactly one
head-to-head address and it reads back as that pair. The arena file's schema, the models' validators
and the database say the same."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.urls import resolve, reverse
from hypothesis import example, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from arena import dataformat
from arena.models import Arena, Persona
from core.text import (
    PRODUCT_SLUG_PATTERN,
    SLUG_PATTERN,
    arena_slugify,
    slug_problem,
    validate_product_slug,
)
from products.models import Product
from tests.factories import ProductFactory
from tests.forms import page_form

# Words that sit near the rule's edges: the separator itself, its letters, its case, underscores.
WORDS = st.sampled_from(["vs", "v", "s", "VS", "Vs", "vs_", "_vs", "vsx", "xvs", "a", "1", ""])
# Slugs made of those words (hyphens doubled or at the ends included), and arbitrary slugs.
SEGMENTED = st.lists(WORDS, min_size=1, max_size=6).map("-".join)
ANY_SLUG = st.from_regex(r"\A[-a-zA-Z0-9_]{1,12}\Z")
PRODUCT_SLUGS = st.one_of(SEGMENTED, ANY_SLUG).filter(lambda s: not slug_problem(s, product=True))
# Strings that are almost slugs: a line break, a space or a non-ASCII letter somewhere.
NEAR = st.one_of(
    SEGMENTED,
    ANY_SLUG,
    st.tuples(
        SEGMENTED, st.sampled_from(["\n", " ", "\t", "é", "\r\n", "/", ".", "\x00"]), SEGMENTED
    ).map("".join),
    SEGMENTED.map(lambda s: s + "\n"),
    st.text(max_size=8),
)


def _oracle(value: str, *, product: bool) -> bool:
    """The rule as the brief states it, written independently of ``core.text``."""
    if not re.fullmatch(r"[-a-zA-Z0-9_]+", value) or "\n" in value:
        return False
    return not (product and "vs" in value.split("-"))


@given(a=PRODUCT_SLUGS, b=PRODUCT_SLUGS, arena=ANY_SLUG)
@example(a="a", b="b", arena="x")
@example(a="a-v", b="s-b", arena="x")
@example(a="a-", b="-b", arena="x")
@example(a="a--", b="--b", arena="vs")
@example(a="x-vsa", b="vsb-y", arena="x")
@example(a="a-VS", b="VS-b", arena="x")
def test_every_pair_of_product_slugs_has_one_head_to_head_address_that_reads_back(a, b, arena):
    for name in ("head-to-head", "head-to-head-markdown"):
        url = reverse(name, args=[arena, a, b])
        match = resolve(url)
        assert match.url_name == name
        assert match.kwargs == {"arena": arena, "a": a, "b": b}


@pytest.mark.parametrize("slug", ["a-vs-b", "vs-x", "x-vs", "vs", "x--vs", "vs-", "-vs"])
def test_a_vs_word_makes_a_product_slug_ambiguous_and_is_refused(slug):
    assert "the word 'vs'" in slug_problem(slug, product=True)
    assert slug_problem(slug) is None  # an arena's or a persona's slug may have it
    with pytest.raises(ValidationError):
        validate_product_slug(slug)


def test_why_the_word_is_refused_two_pairs_would_share_one_address():
    one = reverse("head-to-head", args=["x", "p-vs-q", "r"])
    other = reverse("head-to-head", args=["x", "p", "q-vs-r"])
    assert one == other  # so one of the two pairs could never be reached


@pytest.mark.parametrize("slug", ["a\n", "a b", "", "é", "a/b", "a.b", "\na"])
def test_a_slug_is_letters_digits_hyphens_and_underscores_with_no_line_break(slug):
    assert "is not a slug" in slug_problem(slug)
    assert "is not a slug" in slug_problem(slug, product=True)


def _schema_agrees(pattern_at: list[str]) -> Draft202012Validator:
    node = dataformat.schema()
    for key in pattern_at:
        node = node[key]
    return Draft202012Validator({"type": "string", "pattern": node["pattern"]})


PRODUCT_SCHEMA = _schema_agrees(["properties", "products", "items", "properties", "slug"])
CELL_PRODUCT_SCHEMA = _schema_agrees(["properties", "cells", "items", "properties", "product"])
ARENA_SCHEMA = _schema_agrees(["properties", "arena", "properties", "slug"])
PERSONA_SCHEMA = _schema_agrees(["properties", "personas", "items", "properties", "slug"])


def test_the_schema_carries_the_rules_patterns():
    props = dataformat.schema()["properties"]
    assert props["arena"]["properties"]["slug"]["pattern"] == SLUG_PATTERN
    assert props["personas"]["items"]["properties"]["slug"]["pattern"] == SLUG_PATTERN
    assert props["stories"]["items"]["properties"]["persona"]["pattern"] == SLUG_PATTERN
    assert props["products"]["items"]["properties"]["slug"]["pattern"] == PRODUCT_SLUG_PATTERN
    assert props["cells"]["items"]["properties"]["product"]["pattern"] == PRODUCT_SLUG_PATTERN


@given(value=NEAR)
@example(value="a\n")
@example(value="a-vs\n")
@example(value="vs")
@example(value="a-vs-b")
@example(value="a-VS-b")
def test_the_schema_django_and_the_rule_agree_on_any_string(value):
    slug_ok = slug_problem(value) is None
    product_ok = slug_problem(value, product=True) is None
    assert slug_ok == _oracle(value, product=False)
    assert product_ok == _oracle(value, product=True)
    assert ARENA_SCHEMA.is_valid(value) == slug_ok
    assert PERSONA_SCHEMA.is_valid(value) == slug_ok
    assert PRODUCT_SCHEMA.is_valid(value) == product_ok
    assert CELL_PRODUCT_SCHEMA.is_valid(value) == product_ok
    try:
        validate_slug(value)
        django_ok = True
    except ValidationError:
        django_ok = False
    assert django_ok == slug_ok


@given(name=st.text(max_size=30))
@example(name="A vs B")
@example(name="vs")
@example(name="VS Code")
@example(name="a vs. b")
def test_the_slug_made_of_any_name_is_a_valid_product_slug_or_empty(name):
    made = arena_slugify(name)
    assert made == "" or slug_problem(made, product=True) is None


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("A vs B", "a-versus-b"),
        ("VS Code", "versus-code"),
        ("vs", "versus"),
        ("Trigger.dev", "trigger-dev"),
        ("Canvas", "canvas"),
        ("Versus", "versus"),
    ],
)
def test_a_vs_word_of_a_name_becomes_versus_in_its_slug(name, slug):
    assert arena_slugify(name) == slug


# ---------------------------------------------------------------- the database and the admin


def _violates(fn) -> bool:
    try:
        with transaction.atomic():
            fn()
    except IntegrityError:
        return True
    return False


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["a-vs-b", "vs", "x\n", "a b", ""])
def test_the_database_refuses_a_product_slug_the_rule_refuses(slug):
    product = ProductFactory()
    assert _violates(lambda: Product.all_objects.filter(pk=product.pk).update(slug=slug))
    assert not _violates(lambda: Product.all_objects.filter(pk=product.pk).update(slug="a-b_c"))


@pytest.mark.django_db
@pytest.mark.parametrize("model", [Arena, Persona])
def test_the_database_refuses_an_arena_or_persona_slug_the_rule_refuses(model):
    row = ProductFactory().arena if model is Arena else Persona.objects.create(slug="p", label="p")
    for bad in ("x\n", "a b", ""):
        assert _violates(lambda bad=bad: model.objects.filter(pk=row.pk).update(slug=bad))
    assert not _violates(lambda: model.objects.filter(pk=row.pk).update(slug="vs"))


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("admin", "a@example.com", "pw"))
    return client


@pytest.mark.django_db
def test_the_admin_refuses_a_product_slug_with_a_vs_word_with_a_message(admin_client):
    product = ProductFactory()
    url = f"/admin/products/product/{product.pk}/change/"
    response = admin_client.post(url, page_form(admin_client, url, "product_form", slug="a-vs-b"))
    assert response.status_code == 200
    assert "has the word &#x27;vs&#x27; between hyphens" in response.content.decode()
    product.refresh_from_db()
    assert product.slug != "a-vs-b"
