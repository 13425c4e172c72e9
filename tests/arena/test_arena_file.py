"""The arena file format: export → import into an empty database → export gives the same bytes (the
seed arena, a generated 30 × 300 arena, the documented example); a damaged file is refused with
``FILE: /json/pointer (line N): reason`` and imports nothing; an import respects moderation and twice
is once."""

import contextlib
import io
import json
from datetime import date
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from arena import dataformat
from arena.imports.arena_file import line_of, pointer, read_arena_json
from arena.imports.reading import max_length
from arena.imports.run import ImportRefused
from arena.imports.service import arena_import
from arena.models import Arena
from arena.selectors.export import arena_export_document
from core.text import arena_slugify
from products.models import Product
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import cell_edit
from tests.conftest import _arenas_clear

EXAMPLE = Path(settings.BASE_DIR) / "docs" / "example-arena.json"


def export(slug: str, path: Path) -> bytes:
    call_command("export_arena", slug, "-o", str(path), stderr=io.StringIO())
    return path.read_bytes()


def import_file(path: Path, *options: str) -> str:
    out = io.StringIO()
    call_command("import_arena_json", str(path), *options, stdout=out)
    return out.getvalue()


def document(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def write(path: Path, doc: dict) -> Path:
    path.write_text(dataformat.document_text(doc), encoding="utf-8")
    return path


# ---------------------------------------------------------------- round trips


@pytest.mark.django_db
@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_export_import_into_an_empty_database_exports_the_same_bytes(request, size, tmp_path):
    arena = request.getfixturevalue(size)
    first = export(arena.slug, tmp_path / "first.json")
    _arenas_clear()  # an empty database (a TRUNCATE on PostgreSQL, rolled back after the test)
    assert not Arena.objects.exists() and not Cell.objects.exists()
    out = import_file(tmp_path / "first.json")
    assert out.startswith(f"Created arena {arena.name!r} ({arena.slug})")
    assert export(arena.slug, tmp_path / "second.json") == first
    doc = json.loads(first)
    assert len(doc["cells"]) == len(doc["products"]) * len(doc["stories"])
    assert doc["format"] == "arena-site/arena" and doc["version"] == 1


@pytest.mark.django_db
def test_the_seed_export_states_every_cell_as_the_site_shows_it(seeded_arena, tmp_path):
    doc = json.loads(export(seeded_arena.slug, tmp_path / "seed.json"))
    assert [p["name"] for p in doc["products"]] == list(
        Product.objects.filter(arena=seeded_arena)
        .order_by("position")
        .values_list("name", flat=True)
    )
    assert len(doc["stories"]) == 53 and len(doc["cells"]) == 6 * 53
    stories = {s["key"]: s["text"] for s in doc["stories"]}
    for c in doc["cells"]:
        cell = Cell.objects.get(story__text=stories[c["story"]], product__slug=c["product"])
        assert (c["verdict"], c["proof"], c["quality"]) == (cell.verdict, cell.proof, cell.quality)
        quotes = [e["quote"] for e in c["evidence"]]
        assert quotes == list(cell.evidence.order_by("position").values_list("quote", flat=True))
    # the detailed cells carry their rationale; the others say there is none published
    assert any(c["rationale"] for c in doc["cells"]) and any(
        c["rationale"] is None for c in doc["cells"]
    )


@pytest.mark.django_db
def test_the_documented_example_imports_and_exports_as_written(tmp_path):
    out = import_file(EXAMPLE)
    assert "Created arena 'Team Wikis' (team-wikis): 4 stories, 12 cells" in out
    assert export("team-wikis", tmp_path / "again.json") == EXAMPLE.read_bytes()
    papyr = Cell.objects.get(product__slug="papyr", story__text__startswith="I start a meeting")
    assert (papyr.verdict, papyr.proof, papyr.quality) == ("disputed", "contradicted", 3)
    evidence = list(papyr.evidence.order_by("position").values_list("source", "checked_on"))
    assert [source for source, _ in evidence] == ["claimed-docs", "community"]
    assert str(evidence[0][1]) == "2026-08-30"


@pytest.mark.django_db
def test_check_only_validates_and_writes_nothing():
    out = io.StringIO()
    call_command("import_arena_json", str(EXAMPLE), "--check", stdout=out)
    assert (
        "a valid arena file: 'Team Wikis', 3 products, 4 stories, 12 cells, 2 sources."
        in out.getvalue()
    )
    assert not Arena.objects.filter(slug="team-wikis").exists()


@pytest.mark.django_db
def test_importing_twice_is_importing_once(seeded_arena, tmp_path):
    path = tmp_path / "seed.json"
    before = export(seeded_arena.slug, path)
    # the file states every story's weight (the pages gave a default to two): once stated, the
    # story page no longer calls them a default
    out = import_file(path)
    assert out.startswith("Updated arena 'Durable Execution Engines'")
    assert "  story: 2 changed" in out
    assert export(seeded_arena.slug, tmp_path / "once.json") == before
    version = Arena.objects.get(pk=seeded_arena.pk).content_version
    changes = CellChange.objects.count()
    out = import_file(path)
    assert out.startswith("Unchanged: arena 'Durable Execution Engines'")
    assert Arena.objects.get(pk=seeded_arena.pk).content_version == version
    assert CellChange.objects.count() == changes
    assert export(seeded_arena.slug, tmp_path / "again.json") == before


@pytest.mark.django_db
def test_an_import_updates_cells_evidence_and_dates_and_records_the_change(seeded_arena, tmp_path):
    doc = json.loads(export(seeded_arena.slug, tmp_path / "seed.json"))
    cell = doc["cells"][7]
    cell.update(verdict="partial", proof="claimed", quality=5, evidence_as_of="2026-10-02")
    cell["evidence"] = [
        {
            "source": "github",
            "quote": "A new quote",
            "url": "https://x.example/",
            "checked_on": "2026-10-02",
        }
    ]
    doc["arena"]["updated"] = "2026-10-02"
    out = import_file(write(tmp_path / "changed.json", doc))
    assert out.startswith("Updated arena")
    story = Story.objects.get(arena=seeded_arena, position=doc["cells"][7]["story"] - 1)
    stored = Cell.objects.get(story=story, product__slug=cell["product"])
    assert (stored.verdict, stored.proof, stored.quality) == ("partial", "claimed", 5)
    assert str(stored.evidence_as_of) == "2026-10-02"
    assert list(stored.evidence.values_list("quote", "url")) == [
        ("A new quote", "https://x.example/")
    ]
    change = CellChange.objects.filter(cell=stored).latest("changed_at")
    assert change.note == f"Imported from {tmp_path / 'changed.json'}"
    assert (
        export(seeded_arena.slug, tmp_path / "after.json") == dataformat.document_text(doc).encode()
    )


@pytest.mark.django_db
def test_an_import_keeps_a_moderated_value_newer_than_the_file(seeded_arena, moderator, tmp_path):
    path = tmp_path / "seed.json"
    doc = json.loads(export(seeded_arena.slug, path))
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="none").first()
    cell_edit(
        cell=cell,
        changes={"verdict": "partial", "proof": "community", "quality": 4},
        base_version=cell.version,
        by=moderator,
        note="Seen in the community forum",
    )
    out = import_file(path)
    kept = Cell.objects.get(pk=cell.pk)
    assert (kept.verdict, kept.quality) == ("partial", 4)
    assert "kept direct edit value partial community 4/10" in out
    assert "1 moderated or edited value(s) kept" in out
    out = import_file(path, "--overwrite-moderated")
    assert Cell.objects.get(pk=cell.pk).verdict == "none"
    assert "overwrote direct edit value" in out
    assert doc  # (the file was the export from before the edit)


@pytest.mark.django_db
def test_a_file_without_a_product_or_story_retires_it(seeded_arena, tmp_path):
    doc = json.loads(export(seeded_arena.slug, tmp_path / "seed.json"))
    gone = doc["products"].pop()
    doc["cells"] = [c for c in doc["cells"] if c["product"] != gone["slug"]]
    out = import_file(write(tmp_path / "fewer.json", doc))
    assert f"retired product {gone['name']!r} (no longer in the file" in out
    product = Product.all_objects.get(arena=seeded_arena, slug=gone["slug"])
    assert product.retired_at is not None  # kept on record with its cells
    assert Cell.objects.filter(product=product).count() == 53


# ---------------------------------------------------------------- damaged files


def refused(path: Path) -> str:
    with pytest.raises(CommandError) as caught:
        import_file(path)
    return str(caught.value)


@pytest.mark.django_db
def test_a_truncated_file_names_its_line_and_column_and_imports_nothing(tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    cut = text[: text.index('"quality": 7')]
    path = tmp_path / "cut.json"
    path.write_text(cut, encoding="utf-8")
    message = refused(path)
    line = cut.count("\n") + 1
    assert message.startswith(f"{path}: line {line}, column ")
    assert "not valid JSON" in message
    assert not Arena.objects.filter(slug="team-wikis").exists()


def _damaged(mutate) -> dict:
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    mutate(doc)
    return doc


DAMAGES = {
    "quality out of range": (
        lambda d: d["cells"][0].update(quality=11),
        "/cells/0/quality (line 25): 11 is greater than the maximum of 10",
    ),
    "unknown verdict": (
        lambda d: d["cells"][2].update(verdict="great"),
        "/cells/2/verdict (line 27): 'great' is not one of",
    ),
    "a none cell with a quality": (
        lambda d: d["cells"][2].update(quality=4),
        "/cells/2/quality (line 27): A none cell (no evidence found) has quality 0.",
    ),
    "a full cell without proof": (
        lambda d: d["cells"][0].update(proof=None),
        "/cells/0/proof (line 25): A full cell needs a proof level.",
    ),
    "unknown product": (
        lambda d: d["cells"][1].update(product="nope"),
        "/cells/1/product (line 26): 'nope' is not a product's slug",
    ),
    "unknown story": (
        lambda d: d["cells"][1].update(story=99),
        "/cells/1/story (line 26): no story has the key 99",
    ),
    "a missing cell": (
        lambda d: d["cells"].pop(),
        "/cells (line 24): no cell for the story 4 and the product 'papyr'",
    ),
    "a cell twice": (
        lambda d: d["cells"].append(dict(d["cells"][0])),
        "/cells/12 (line 37): a second cell for the same story and product",
    ),
    "a group the category lacks": (
        lambda d: d["stories"][0].update(group="Nope"),
        "/stories/0/group (line 19): 'Nope' is not a group of 'Writing'",
    ),
    "a persona not listed": (
        lambda d: d["stories"][2].update(persona="ghost"),
        "/stories/2/persona (line 21): 'ghost' is not a persona",
    ),
    "two products with one slug": (
        lambda d: d["products"][1].update(slug="quillbase"),
        "/products/1/slug (line 15): 'quillbase' is already used by /products/0",
    ),
    "story text twice": (
        lambda d: d["stories"][1].update(text=d["stories"][0]["text"]),
        "/stories/1/text (line 20): 'I write a page in markdown and see it rendered as I type' "
        "is already used by /stories/0",
    ),
    "a bad date": (
        lambda d: d["cells"][0].update(evidence_as_of="2026-02-30"),
        "/cells/0/evidence_as_of (line 25): ",
    ),
    "a control character": (
        lambda d: d["cells"][0].update(rationale="bell \x07 here"),
        "/cells/0/rationale (line 25): holds the control character U+0007 at position 5",
    ),
    "an unknown key": (
        lambda d: d["arena"].update(owner="me"),
        "/arena (line 4): Additional properties are not allowed ('owner' was unexpected)",
    ),
    "a text too long for the database": (
        lambda d: d["products"][0].update(name="x" * 5000),
        "/products/0/name (line 14): 'xxxxxxxxxx",
    ),
    "an arena slug ending in a line break": (
        lambda d: d["arena"].update(slug="team-wikis\n"),
        "/arena/slug (line 4): 'team-wikis\\n' is not a slug: only letters, digits, hyphens "
        "and underscores (no spaces or line breaks)",
    ),
    "a product slug ending in a line break": (
        lambda d: d["products"][0].update(slug="quillbase\n"),
        "/products/0/slug (line 14): 'quillbase\\n' is not a slug",
    ),
    "a persona slug ending in a line break": (
        lambda d: d["personas"][0].update(slug="team-lead\n"),
        "/personas/0/slug (line 10): 'team-lead\\n' is not a slug",
    ),
    "a product slug with the word vs": (
        lambda d: d["products"][1].update(slug="kite-vs-notes"),
        "/products/1/slug (line 15): 'kite-vs-notes' has the word 'vs' between hyphens, which "
        "would make the head-to-head address <a>-vs-<b> ambiguous",
    ),
    "a licence that is no SPDX identifier": (
        lambda d: d["products"][0].update(licence="MIT-ish"),
        "/products/0/licence (line 14): 'MIT-ish' is not an SPDX licence identifier",
    ),
    "a licence expression left unfinished": (
        lambda d: d["products"][1].update(licence="MIT OR"),
        "/products/1/licence (line 15): is an unfinished SPDX licence expression",
    ),
    "a hosting that is none of the three": (
        lambda d: d["products"][0].update(hosting="cloud"),
        "/products/0/hosting (line 14): 'cloud' is not one of ['self-hosted', 'managed', 'both',",
    ),
    "a release date that is no day": (
        lambda d: d["products"][2].update(first_release="2026-02-30"),
        "/products/2/first_release (line 16): '2026-02-30' is not a 'date'",
    ),
    "a website that is no address": (
        lambda d: d["products"][0].update(website="quillbase.example"),
        "/products/0/website (line 14): 'quillbase.example' does not match '^https?://'",
    ),
    "a language named twice": (
        lambda d: d["products"][0].update(languages=["Go", "Go"]),
        "/products/0/languages (line 14): ['Go', 'Go'] has non-unique elements",
    ),
    "a source listed twice": (
        lambda d: d["sources"].append(dict(d["sources"][0])),
        "/sources/2/key (line 44): 'kite-docs-2' is already used by /sources/0",
    ),
    "a source accessed on no day": (
        lambda d: d["sources"][0].update(accessed="yesterday"),
        "/sources/0/accessed (line 42): 'yesterday' is not a 'date'",
    ),
    "another format": (lambda d: d.update(format="something-else"), "/format (line 2): "),
    "a newer version": (
        lambda d: d.update(version=2),
        "/version (line 3): format version 2 is newer than this site reads (1)",
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_file_is_refused_naming_the_value_and_imports_nothing(damage, tmp_path):
    mutate, expected = DAMAGES[damage]
    path = write(tmp_path / "damaged.json", _damaged(mutate))
    message = refused(path)
    assert f"{path}: {expected}" in message
    assert len(message) < 2000  # a long value is quoted cut short
    assert not Arena.objects.filter(slug="team-wikis").exists()
    assert not Product.all_objects.filter(slug="quillbase").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "file is empty"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b'{"format": 1, "format": 2}', "the key 'format' appears twice in one object"),
        (b"[]", "/ (line 1): [] is not of type 'object'"),
        (b"[" * 100_000, "nested too deeply"),
    ],
)
def test_files_that_are_no_arena_file_at_all_are_refused(content, expected, tmp_path):
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    assert expected in refused(path)


@pytest.mark.django_db
def test_a_missing_file_is_named(tmp_path):
    assert "cannot read file" in refused(tmp_path / "nowhere.json")


def test_the_schema_allows_what_the_database_stores():
    schema = dataformat.schema()["properties"]
    items = {name: schema[name]["items"]["properties"] for name in ("products", "stories")}
    assert items["products"]["name"]["maxLength"] == max_length("Product.name")
    assert items["products"]["slug"]["maxLength"] == max_length("Product.slug")
    assert items["products"]["tier"]["maxLength"] == max_length("Product.tier")
    assert items["stories"]["text"]["maxLength"] == max_length("Story.text")
    assert schema["arena"]["properties"]["name"]["maxLength"] == max_length("Arena.name")
    evidence = schema["cells"]["items"]["properties"]["evidence"]["items"]["properties"]
    assert evidence["source"]["maxLength"] == max_length("Evidence.source")
    assert evidence["url"]["maxLength"] == max_length("Evidence.url")


def test_pointers_and_lines():
    text = EXAMPLE.read_text(encoding="utf-8")
    assert pointer([]) == "/" and pointer(["a/b", "c~d", 3]) == "/a~1b/c~0d/3"
    assert line_of(text, ["cells", 0, "quality"]) == 25
    assert line_of(text, ["stories", 3]) == 22
    assert line_of(text, ["nowhere"]) is None


# ---------------------------------------------------------------- any text survives the trip

# a long text (rationale, quote) may hold tabs and line breaks; a name or title is one line
TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=60
).map(
    lambda s: "".join(
        ch for ch in s if ch in "\t\n" or not (ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F)
    )
)
LINE = TEXT.map(lambda s: s.replace("\t", " ").replace("\n", " "))


@pytest.mark.django_db
@hsettings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rationale=TEXT, quote=TEXT.filter(bool), story=LINE.map(str.strip).filter(bool))
def test_any_text_comes_back_exactly(tmp_path, rationale, quote, story):
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    doc["cells"][0]["rationale"] = rationale
    doc["cells"][0]["evidence"][0]["quote"] = quote
    doc["stories"][3]["text"] = story
    path = write(tmp_path / "text.json", doc)
    arena_import(record=read_arena_json(path))
    exported = arena_export_document(arena=Arena.objects.get(slug="team-wikis"))
    cell = next(exported["cells"])  # (read as the file is written)
    assert cell["rationale"] == rationale and cell["evidence"][0]["quote"] == quote
    assert exported["stories"][3]["text"] == story
    assert Evidence.objects.filter(quote=quote).exists()


# ---------------------------------------------------------------- any arena survives the trip

WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30).filter(
    lambda s: s.strip() == s and any(ch.isalnum() for ch in s)
)
# (a file cannot be dated after the day it is imported)
DAY = st.dates(min_value=date(2020, 1, 1), max_value=date(2026, 1, 1)).map(date.isoformat)
VALUES = st.one_of(
    st.tuples(
        st.sampled_from(["full", "partial", "disputed"]),
        st.sampled_from(["probed", "community", "claimed", "contradicted", "auth-gated"]),
        st.integers(0, 10),
    ),
    st.just(("none", None, 0)),
    st.just(("n/a", None, None)),
)
EVIDENCE = st.builds(
    lambda source, quote, url, day: {
        "source": source,
        "quote": quote,
        "url": url,
        "checked_on": day,
    },
    st.sampled_from(["claimed-docs", "github", "community", "probe"]),
    NAME,
    st.one_of(st.none(), WORD.map(lambda w: f"https://{w}.example/")),
    st.one_of(st.none(), DAY),
)

URL = WORD.map(lambda w: f"https://{w}.example/")
# what a product is: each fact stated or not (null, an empty list), in the exporter's order
FACT_KEYS = (
    "website",
    "repository",
    "documentation",
    "licence",
    "languages",
    "hosting",
    "pricing",
    "first_release",
    "latest_release",
    "latest_version",
)
FACTS = st.fixed_dictionaries(
    {
        "website": st.one_of(st.none(), URL),
        "repository": st.one_of(st.none(), URL),
        "documentation": st.one_of(st.none(), URL),
        "licence": st.sampled_from(
            [None, "MIT", "Apache-2.0 OR MIT", "SSPL-1.0", "LicenseRef-Proprietary"]
        ),
        "languages": st.lists(NAME, max_size=3, unique=True),
        "hosting": st.sampled_from([None, "self-hosted", "managed", "both"]),
        "pricing": st.one_of(st.none(), NAME),
        "first_release": st.one_of(st.none(), DAY),
        "latest_release": st.one_of(st.none(), DAY),
        "latest_version": st.one_of(st.none(), WORD),
    }
).map(lambda facts: {key: facts[key] for key in FACT_KEYS})
SOURCES = st.lists(
    st.fixed_dictionaries(
        {
            "key": WORD,
            "title": st.one_of(st.none(), NAME),
            "url": st.one_of(st.none(), URL),
            "accessed": st.one_of(st.none(), DAY),
        }
    ).map(lambda s: {key: s[key] for key in ("key", "title", "url", "accessed")}),
    max_size=3,
    unique_by=lambda s: s["key"],
).map(lambda sources: sorted(sources, key=lambda s: s["key"]))


@st.composite
def arenas(draw) -> dict:
    categories = draw(st.lists(NAME, min_size=1, max_size=3, unique_by=arena_slugify_key))
    groups = {c: draw(st.lists(NAME, max_size=2, unique=True)) for c in categories}
    personas = draw(st.lists(WORD, min_size=1, max_size=3, unique=True))
    products = draw(st.lists(NAME, min_size=1, max_size=4, unique_by=arena_slugify_key))
    stories = []
    for key in range(1, draw(st.integers(1, 5)) + 1):
        category = draw(st.sampled_from(categories))
        stories.append(
            {
                "key": key,
                "text": draw(NAME),
                "category": category,
                "group": draw(st.sampled_from([None, *groups[category]])),
                "persona": f"p-{draw(st.sampled_from(personas))}",
                "weight": draw(st.integers(1, 3)),
            }
        )
    if len({s["text"] for s in stories}) < len(stories):
        hypothesis_reject()
    slugs = [arena_slugify_key(p) for p in products]
    cells = []
    for s in stories:
        for slug in slugs:
            verdict, proof, quality = draw(VALUES)
            cells.append(
                {
                    "story": s["key"],
                    "product": slug,
                    "verdict": verdict,
                    "proof": proof,
                    "quality": quality,
                    "rationale": draw(st.one_of(st.none(), NAME)),
                    "evidence_as_of": draw(st.one_of(st.none(), DAY)),
                    "evidence": draw(st.lists(EVIDENCE, max_size=2)),
                }
            )
    used = {s["persona"] for s in stories}
    return {
        "format": "arena-site/arena",
        "version": 1,
        "arena": {
            "slug": "prop",
            "name": draw(NAME),
            "description": draw(
                st.text(max_size=40).filter(
                    lambda t: not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in t)
                )
            ),
            "updated": draw(DAY),
            "evidence_as_of": draw(st.one_of(st.none(), DAY)),
        },
        "categories": [
            {
                "name": c,
                "blurb": "",
                "groups": [
                    g
                    for g in groups[c]
                    if any(s["group"] == g and s["category"] == c for s in stories)
                ],
            }
            for c in categories
            if any(s["category"] == c for s in stories)
        ],
        "personas": [
            {"slug": p, "label": p.replace("-", " ")}
            for p in dict.fromkeys(s["persona"] for s in stories)
            if p in used
        ],
        "products": [
            {
                "slug": slug,
                "name": name,
                "tier": "",
                "stars": draw(st.one_of(st.none(), st.integers(0, 10**12))),
                "stars_growth": None,
                "npm_weekly": None,
                "pypi_weekly": draw(st.one_of(st.none(), st.integers(0, 10**9))),
                "popularity_as_of": draw(st.one_of(st.none(), DAY)),
                **draw(FACTS),
            }
            for slug, name in zip(slugs, products, strict=True)
        ],
        "stories": stories,
        "cells": cells,
        "adjacent": [],
        "sources": draw(SOURCES),
    }


def arena_slugify_key(name: str) -> str:
    return arena_slugify(name) or "x"


@contextlib.contextmanager
def rolled_back():
    """What the block writes is undone when it ends, even when it passes (a savepoint in the
    test's transaction): each example starts from the database the test started from."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def hypothesis_reject() -> None:
    from hypothesis import reject

    reject()


@pytest.mark.django_db
@hsettings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(doc=arenas())
def test_any_arena_file_imports_into_an_empty_database_and_exports_as_written(tmp_path, doc):
    text = dataformat.document_text(doc)
    path = tmp_path / "any.json"
    path.write_text(text, encoding="utf-8")
    with rolled_back():
        assert not Arena.objects.exists()
        arena_import(record=read_arena_json(path))
        exported = arena_export_document(arena=Arena.objects.get(slug="prop"))
        assert dataformat.document_text(exported) == text


@pytest.mark.django_db
@hsettings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(before=arenas(), after=arenas())
def test_any_arena_file_imported_over_another_exports_as_written(tmp_path, before, after):
    """The authoring loop: a file imported over the arena an earlier file made (nothing moderated
    in between) leaves the arena exactly as the new file says, or is refused whole."""
    first, second = tmp_path / "before.json", tmp_path / "after.json"
    text = dataformat.document_text(after)
    second.write_text(text, encoding="utf-8")
    with rolled_back():
        assert not Arena.objects.exists()
        arena_import(record=read_arena_json(write(first, before)))
        try:
            arena_import(record=read_arena_json(second))
        except ImportRefused as refused:
            assert "would take the" in str(refused)
            assert dataformat.document_text(
                arena_export_document(arena=Arena.objects.get(slug="prop"))
            ) == dataformat.document_text(before)
            return
        exported = arena_export_document(arena=Arena.objects.get(slug="prop"))
        assert dataformat.document_text(exported) == text


@pytest.mark.django_db
def test_export_arena_names_an_unknown_arena_and_an_unwritable_file(seeded_arena, tmp_path):
    with pytest.raises(CommandError, match="no arena has the slug 'nowhere'"):
        call_command("export_arena", "nowhere", stdout=io.StringIO())
    with pytest.raises(CommandError, match="cannot write"):
        export(seeded_arena.slug, tmp_path / "missing-folder" / "x.json")


@pytest.mark.django_db
def test_export_arena_writes_to_standard_output_without_a_file(seeded_arena, tmp_path, capfdbinary):
    expected = export(seeded_arena.slug, tmp_path / "file.json")
    capfdbinary.readouterr()
    call_command("export_arena", seeded_arena.slug)
    assert capfdbinary.readouterr().out == expected


@pytest.mark.django_db
def test_check_refuses_a_slug_ending_in_a_line_break(tmp_path):
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    doc["arena"]["slug"] = "team-wikis\n"
    path = write(tmp_path / "newline.json", doc)
    with pytest.raises(CommandError) as caught:
        import_file(path, "--check")
    assert "/arena/slug (line 4): 'team-wikis\\n' is not a slug" in str(caught.value)
    assert not Arena.objects.exists()


@pytest.mark.django_db
def test_a_product_named_with_vs_gets_a_slug_every_page_can_link(client, tmp_path):
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    del doc["products"][1]["slug"]
    doc["products"][1]["name"] = "Kite vs Notes"
    for cell in doc["cells"]:
        if cell["product"] == "kite-notes":
            cell["product"] = "kite-versus-notes"
    import_file(write(tmp_path / "vs.json", doc))
    assert Product.objects.filter(name="Kite vs Notes", slug="kite-versus-notes").exists()
    for url in ("/", "/api/arenas/", "/sitemap.xml", "/llms.txt", "/arenas/team-wikis/"):
        assert client.get(url).status_code == 200, url
    sitemap = client.get("/arenas/team-wikis/sitemap.xml").content.decode()
    assert "/arenas/team-wikis/products/kite-versus-notes/" in sitemap
    for url in (
        "/arenas/team-wikis/vs/kite-versus-notes-vs-quillbase/",
        "/arenas/team-wikis/vs/quillbase-vs-kite-versus-notes.md",
        "/api/arenas/team-wikis/compare/kite-versus-notes/papyr/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Kite vs Notes" in response.content.decode() or "kite-versus-notes" in (
            response.content.decode()
        )
