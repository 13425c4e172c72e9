"""A name or slug that the database already holds (another arena, a retired product, one an admin
renamed, a story an admin reworded) is refused as ``FILE: reason`` by both importers, never a
database traceback, and nothing is imported."""

import copy
import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from arena import dataformat
from arena.models import Arena
from arena.selectors.export import arena_export_document
from products.models import Product
from products.services import product_update
from stories.models import Story
from stories.services import story_update
from tests.arena.test_import_moderation import reworded

EXAMPLE = Path(settings.BASE_DIR) / "docs" / "example-arena.json"
MARKDOWN = "I write a page in markdown and see it rendered as I type"

pytestmark = pytest.mark.django_db


def example() -> dict:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def write(path: Path, doc: dict) -> Path:
    path.write_text(dataformat.document_text(doc), encoding="utf-8")
    return path


def import_json(path: Path) -> str:
    out = io.StringIO()
    call_command("import_arena_json", str(path), stdout=out)
    return out.getvalue()


def state() -> tuple:
    """Everything an import could change: every arena as exported, and every row's name."""
    return (
        [dataformat.document_text(arena_export_document(arena=a)) for a in Arena.objects.all()],
        sorted(Arena.objects.values_list("slug", "name", "content_version")),
        sorted(Product.all_objects.values_list("slug", "name", "retired_at")),
        sorted(Story.all_objects.values_list("text", "retired_at")),
    )


def refused(run, *args) -> str:
    before = state()
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert state() == before, "a refused import changed the database"
    return str(caught.value)


def with_product(doc: dict, name: str, slug: str) -> dict:
    """The document with one more product (judged like the last one)."""
    doc = copy.deepcopy(doc)
    last = doc["products"][-1]
    doc["products"].append({**last, "name": name, "slug": slug})
    doc["cells"] += [{**c, "product": slug} for c in doc["cells"] if c["product"] == last["slug"]]
    return doc


def without_product(doc: dict, slug: str) -> dict:
    doc = copy.deepcopy(doc)
    doc["products"] = [p for p in doc["products"] if p["slug"] != slug]
    doc["cells"] = [c for c in doc["cells"] if c["product"] != slug]
    return doc


@pytest.fixture
def wikis(tmp_path) -> Arena:
    import_json(write(tmp_path / "first.json", example()))
    return Arena.objects.get(slug="team-wikis")


# ---------------------------------------------------------------- the arena file


def test_a_new_product_taking_the_name_an_admin_gave_another_is_refused(wikis, tmp_path):
    product_update(product=Product.objects.get(slug="quillbase"), changes={"name": "Notable"})
    path = write(tmp_path / "a.json", with_product(example(), "Notable", "notable"))
    message = refused(import_json, path)
    assert message == (
        f"{path}: product 'Notable' would take the name 'Notable' of the product 'Notable', "
        "which the pages call 'Quillbase'; rename one of them (nothing was imported)"
    )


def test_a_product_taking_the_slug_of_a_retired_product_is_refused(wikis, tmp_path):
    import_json(write(tmp_path / "b.json", without_product(example(), "papyr")))
    doc = without_product(example(), "papyr")
    doc["products"][1]["slug"] = "papyr"  # Kite Notes
    for c in doc["cells"]:
        if c["product"] == "kite-notes":
            c["product"] = "papyr"
    path = write(tmp_path / "c.json", doc)
    message = refused(import_json, path)
    assert message == (
        f"{path}: product 'Kite Notes' would take the slug 'papyr' of the retired product "
        "'Papyr'; rename one of them (nothing was imported)"
    )


def test_a_new_product_taking_the_name_of_a_retired_product_is_refused(wikis, tmp_path):
    product_update(product=Product.objects.get(slug="papyr"), changes={"name": "Old Papyr"})
    import_json(write(tmp_path / "b.json", without_product(example(), "papyr")))
    path = write(tmp_path / "c.json", with_product(example(), "Old Papyr", "old-papyr"))
    message = refused(import_json, path)
    assert message == (
        f"{path}: product 'Old Papyr' would take the name 'Old Papyr' of the retired product "
        "'Old Papyr', which the pages call 'Papyr'; rename one of them (nothing was imported)"
    )


def test_two_products_swapping_slugs_are_refused(wikis, tmp_path):
    doc = example()
    doc["products"][0]["slug"], doc["products"][1]["slug"] = "kite-notes", "quillbase"
    for c in doc["cells"]:
        c["product"] = {"quillbase": "kite-notes", "kite-notes": "quillbase"}.get(
            c["product"], c["product"]
        )
    path = write(tmp_path / "swap.json", doc)
    message = refused(import_json, path)
    assert message == (
        f"{path}: product 'Quillbase' would take the slug 'kite-notes' of the product "
        "'Kite Notes'; rename one of them (nothing was imported)"
    )


def test_an_arena_whose_slug_and_name_belong_to_two_arenas_is_refused(wikis, tmp_path):
    Arena.objects.create(slug="other-wikis", name="Other Wikis")
    doc = example()
    doc["arena"]["name"] = "Other Wikis"
    path = write(tmp_path / "d.json", doc)
    message = refused(import_json, path)
    assert message == (
        f"{path}: the arena name 'Other Wikis' already belongs to the arena 'other-wikis', and "
        "the slug 'team-wikis' belongs to the arena 'Team Wikis'; give the arena its own slug and "
        "name (nothing was imported)"
    )


def test_a_story_taking_the_text_an_admin_gave_another_is_refused(wikis, tmp_path):
    story_update(story=Story.objects.get(text=MARKDOWN), changes={"text": "I write in markdown"})
    doc = example()
    doc["stories"][1]["text"] = "I write in markdown"
    path = write(tmp_path / "e.json", doc)
    message = refused(import_json, path)
    assert message == (
        f"{path}: the story 'I write in markdown' is the text of another story, which the pages "
        f"call {MARKDOWN!r}; reword one of them (nothing was imported)"
    )


def test_a_story_taking_the_text_of_a_retired_story_is_refused(wikis, tmp_path):
    story_update(story=Story.objects.get(text=MARKDOWN), changes={"text": "I write in markdown"})
    doc = example()
    dropped = copy.deepcopy(doc)
    dropped["stories"].pop(0)
    dropped["cells"] = [c for c in dropped["cells"] if c["story"] != 1]
    import_json(write(tmp_path / "f.json", dropped))
    assert Story.all_objects.get(text="I write in markdown").retired_at is not None
    dropped["stories"][0]["text"] = "I write in markdown"
    message = refused(import_json, write(tmp_path / "g.json", dropped))
    assert "the story 'I write in markdown' is the text of a retired story" in message


def test_the_refused_file_imports_once_the_clash_is_resolved(wikis, tmp_path):
    product = Product.objects.get(slug="quillbase")
    product_update(product=product, changes={"name": "Notable"})
    path = write(tmp_path / "a.json", with_product(example(), "Notable", "notable"))
    refused(import_json, path)
    product_update(product=Product.objects.get(pk=product.pk), changes={"name": "Quillbase"})
    assert "Updated arena 'Team Wikis'" in import_json(path)
    assert Product.objects.filter(slug="notable", name="Notable").exists()


# ---------------------------------------------------------------- the page importer


def import_pages(paths) -> None:
    call_command("import_arena_pages", *paths, stdout=io.StringIO())


def test_pages_naming_a_new_product_as_an_admin_renamed_another_are_refused(
    seeded_arena, seed_files, tmp_path
):
    product_update(product=Product.objects.get(slug="dbos"), changes={"name": "Hatchway"})
    paths = reworded(tmp_path, seed_files, "Hatchet", "Hatchway")
    message = refused(import_pages, paths)
    assert message.endswith(
        ": product 'Hatchway' would take the name 'Hatchway' of the product 'Hatchway', which "
        "the pages call 'DBOS'; rename one of them (nothing was imported)"
    )
    assert message.split(":")[0] in paths


def test_pages_rewording_a_story_to_the_text_an_admin_gave_another_are_refused(
    seeded_arena, seed_files, tmp_path
):
    first, second = Story.objects.filter(arena=seeded_arena).order_by("position")[:2]
    story_update(story=first, changes={"text": "A reworded story text"})
    paths = reworded(tmp_path, seed_files, second.text, "A reworded story text")
    message = refused(import_pages, paths)
    assert "the story 'A reworded story text' is the text of another story, which the pages " in (
        message
    )


def test_pages_of_an_arena_whose_slug_another_arena_took_are_refused(seeded_arena, seed_files):
    Arena.objects.filter(pk=seeded_arena.pk).update(slug="dee")
    Arena.objects.create(slug="durable-execution-engines", name="Something Else")
    message = refused(import_pages, seed_files)
    assert (
        "the arena name 'Durable Execution Engines' already belongs to the arena 'dee', and the "
        "slug 'durable-execution-engines' belongs to the arena 'Something Else'"
    ) in message


def test_pages_with_two_categories_of_one_slug_are_refused_at_their_line(seed_files, tmp_path):
    # the slug is the category's key in ?weights= and the matrix's filter
    paths = reworded(tmp_path, seed_files, "Developer experience", "Agent Workloads")
    message = refused(import_pages, paths)
    assert ":68: categories 'Agent workloads' and 'Agent Workloads' have the same slug " in message
    assert "'agent-workloads'" in message
