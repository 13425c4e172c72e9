"""A re-import respects moderation, and nothing recorded can disappear: stories and products that
vanish from the pages are retired, and the database refuses to delete the record."""

import io
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import ProtectedError
from django.test import Client

from arena.models import Arena, Category, Persona, ProductScore
from core.conflicts import retire_set
from flags.forms import DecisionForm, FlagForm
from flags.models import Flag, ModeratorAction, ReviewItem
from flags.services import flag_submit, review_item_uphold
from products.models import Product
from products.services import product_update
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import cell_edit, story_update
from tests.forms import page_form
from web.http.clients import client_hash

APPROVAL = "A workflow pauses for human approval"
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def upheld(seeded_arena, moderator, django_capture_on_commit_callbacks):
    """Hatchet's approval cell corrected from none to full through an upheld flag."""
    cell = Cell.objects.get(story__text__startswith=APPROVAL, product__slug="hatchet")
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": "wrong_verdict",
                "explanation": EXPLANATION,
                "proposed_verdict": "full",
                "proposed_quality": 8,
            }
        ),
        client=client_hash("10.9.9.9"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        review_item_uphold(
            item=flag.item,
            moderator=moderator,
            form=DecisionForm({"note": "Confirmed in the docs."}),
        )
    return flag


def import_pages(paths, *options, capture=None) -> str:
    out = io.StringIO()
    with capture(execute=True) if capture else _nothing():
        call_command("import_arena_pages", *paths, *options, stdout=out)
    return out.getvalue()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.django_db
def test_reimport_keeps_the_upheld_value_and_reports_it(
    upheld, seed_files, django_capture_on_commit_callbacks
):
    marked = Cell.objects.get(pk=upheld.cell_id).rationale_predates
    assert marked is not None  # the upheld correction left the page's rationale marked
    out = import_pages(seed_files, capture=django_capture_on_commit_callbacks)
    cell = Cell.objects.get(pk=upheld.cell_id)
    assert (cell.verdict, cell.proof, cell.quality) == ("full", "claimed", 8)
    assert cell.rationale_predates == marked  # still the corrected verdict beside the old text
    assert "kept upheld flag value full claimed 8/10 of Hatchet on “A workflow pauses" in out
    assert "page says none 0/10)" in out
    assert "1 moderated or edited value(s) kept" in out
    assert CellChange.objects.filter(cell=cell).count() == 1
    assert Client().get(f"/flags/status/{upheld.token}/").status_code == 200


@pytest.mark.django_db
def test_overwrite_option_writes_the_page_value_on_record(
    upheld, seed_files, django_capture_on_commit_callbacks
):
    out = import_pages(
        seed_files, "--overwrite-moderated", capture=django_capture_on_commit_callbacks
    )
    cell = Cell.objects.get(pk=upheld.cell_id)
    assert cell.verdict == "none"
    # the page's rationale beside the page's verdict again: no longer marked
    assert cell.rationale_predates is None and cell.rationale_rewritten_at is None
    assert "overwrote upheld flag value full claimed 8/10 of Hatchet" in out
    change = CellChange.objects.filter(cell=cell).first()
    assert change.kind == CellChange.Kind.IMPORT_OVERRIDE
    assert "over the upheld flag value full claimed 8/10" in change.note
    page = Client().get(f"/cells/{cell.pk}/").content.decode()
    assert "import over a moderated value" in page


def reworded(tmp_path: Path, seed_files, old: str, new: str) -> list[str]:
    """The seed pages with one text replaced everywhere (a story reworded, a product renamed)."""
    paths = []
    for src in seed_files:
        dst = tmp_path / Path(src).name
        shutil.copy(src, dst)
        dst.write_text(dst.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        paths.append(str(dst))
    return paths


@pytest.mark.django_db
def test_a_reworded_story_is_retired_with_its_flags_and_history(
    upheld, seed_files, tmp_path, django_capture_on_commit_callbacks
):
    old = Story.objects.get(text__startswith=APPROVAL)
    new_text = "A workflow waits for a person to approve, then resumes"
    paths = reworded(tmp_path, seed_files, old.text, new_text)
    out = import_pages(paths, capture=django_capture_on_commit_callbacks)
    assert f"retired story {old.text!r}" in out
    old = Story.all_objects.get(pk=old.pk)
    assert old.retired_at is not None
    assert Story.objects.filter(text=new_text).exists()
    assert not Story.objects.filter(pk=old.pk).exists()  # off the pages and out of the scores
    assert Flag.objects.filter(pk=upheld.pk).exists()
    assert ReviewItem.objects.filter(cell_id=upheld.cell_id).exists()
    assert ModeratorAction.objects.filter(item__cell_id=upheld.cell_id).exists()
    assert CellChange.objects.filter(cell_id=upheld.cell_id).exists()
    visitor = Client()
    assert visitor.get(f"/flags/status/{upheld.token}/").status_code == 200
    proof = visitor.get(f"/cells/{upheld.cell_id}/").content.decode()
    assert "kept on record only" in proof and "Flag this verdict" not in proof
    assert f"/cells/{upheld.cell_id}/" in visitor.get("/changes/").content.decode()
    matrix = visitor.get("/api/arenas/durable-execution-engines/matrix/").json()
    texts = [s["text"] for s in matrix["stories"]]
    assert old.text not in texts and new_text in texts and len(texts) == 53
    # the story comes back when the pages list it again
    out = import_pages(seed_files, capture=django_capture_on_commit_callbacks)
    assert f"restored story {old.text!r}" in out
    assert Story.objects.filter(pk=old.pk).exists()


@pytest.mark.django_db
def test_a_vanished_product_is_retired_not_deleted(
    upheld, seed_files, tmp_path, django_capture_on_commit_callbacks
):
    paths = reworded(tmp_path, seed_files, "Hatchet", "Hatchway")
    out = import_pages(paths, capture=django_capture_on_commit_callbacks)
    assert "retired product 'Hatchet'" in out
    hatchet = Product.all_objects.get(slug="hatchet")
    assert hatchet.retired_at is not None
    assert Cell.objects.filter(product=hatchet).count() == 53
    assert Flag.objects.filter(pk=upheld.pk).exists()
    assert not ProductScore.objects.filter(product=hatchet).exists()
    assert ProductScore.objects.filter(product__slug="hatchway").exists()
    assert Client().get("/arenas/durable-execution-engines/products/hatchet/").status_code == 404


@pytest.mark.django_db
def test_a_renamed_product_with_the_same_slug_is_the_same_product(
    seed_files, tmp_path, seeded_arena, django_capture_on_commit_callbacks
):
    dbos = Product.objects.get(slug="dbos")
    paths = reworded(tmp_path, seed_files, "DBOS", "Dbos")
    import_pages(paths, capture=django_capture_on_commit_callbacks)
    dbos.refresh_from_db()
    assert dbos.name == "Dbos" and dbos.retired_at is None


@pytest.mark.django_db
def test_nothing_recorded_can_be_deleted(upheld):
    cell = Cell.objects.get(pk=upheld.cell_id)
    story, product = cell.story, cell.product
    for obj in (story.arena, story, product, cell, upheld.item):
        with pytest.raises(ProtectedError), transaction.atomic():
            obj.delete()
    # the database itself refuses, whatever the caller: foreign keys without ON DELETE CASCADE
    for table, pk in (
        ("stories_story", story.pk),
        ("products_product", product.pk),
        ("stories_cell", cell.pk),
        ("flags_reviewitem", upheld.item_id),
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            with connection.cursor() as cursor:
                if connection.vendor == "postgresql":  # Django's foreign keys are deferred
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(f"DELETE FROM {table} WHERE id = %s", [pk])
                if connection.vendor == "sqlite":
                    cursor.execute("PRAGMA foreign_key_check")
                    if cursor.fetchall():
                        raise IntegrityError("foreign key violation")
    assert CellChange.objects.filter(cell=cell).count() == 1


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL trigger")
def test_postgresql_refuses_to_delete_the_record_and_the_audit_log(upheld):

    for table in ("stories_cellchange", "flags_moderatoraction"):
        for sql in (f"DELETE FROM {table}", f"UPDATE {table} SET note = 'rewritten'"):
            with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute(sql)
    assert CellChange.objects.count() == 1 and ModeratorAction.objects.count() == 1


@pytest.mark.django_db
def test_the_admin_offers_no_delete_of_the_record(upheld, django_user_model):
    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    change = CellChange.objects.get()
    action = ModeratorAction.objects.get()
    for url in (
        f"/admin/stories/cellchange/{change.pk}/delete/",
        f"/admin/flags/moderatoraction/{action.pk}/delete/",
        f"/admin/flags/reviewitem/{upheld.item_id}/delete/",
        f"/admin/stories/story/{upheld.cell.story_id}/delete/",
        f"/admin/products/product/{upheld.cell.product_id}/delete/",
        f"/admin/stories/cell/{upheld.cell_id}/delete/",
    ):
        assert admin.post(url, {"post": "yes"}).status_code == 403, url
    assert CellChange.objects.count() == 1 and ModeratorAction.objects.count() == 1


@pytest.mark.django_db
def test_an_arena_whose_slug_an_admin_changed_is_updated_not_duplicated(seed_files):

    Arena.objects.create(slug="dee", name="Durable Execution Engines")
    call_command("import_arena_pages", *seed_files, stdout=io.StringIO())
    assert list(Arena.objects.values_list("slug", flat=True)) == ["dee"]


@pytest.mark.django_db
def test_a_new_product_taking_an_edited_slug_is_refused(seeded_arena, seed_files, tmp_path):

    Product.objects.filter(slug="dbos").update(slug="hatchway")
    paths = reworded(tmp_path, seed_files, "Hatchet", "Hatchway")
    with pytest.raises(CommandError, match="would take the slug 'hatchway' of the product 'DBOS'"):
        call_command("import_arena_pages", *paths, stdout=io.StringIO())
    assert Product.objects.filter(slug="hatchet").exists()


@pytest.mark.django_db
def test_reimport_keeps_admin_edits_of_rationale_and_weight(
    seeded_arena, seed_files, django_capture_on_commit_callbacks
):

    cell = Cell.objects.get(story__text__startswith=APPROVAL, product__slug="inngest")
    cell_edit(
        cell=cell, changes={"rationale": "Re-checked: waitForEvent."}, base_version=cell.version
    )
    story = Story.objects.get(text__startswith=APPROVAL)
    story_update(story=story, changes={"weight": 1})
    out = import_pages(seed_files, capture=django_capture_on_commit_callbacks)
    cell.refresh_from_db()
    story.refresh_from_db()
    assert cell.rationale == "Re-checked: waitForEvent." and story.weight == 1
    assert "kept edited rationale of Inngest on “A workflow pauses" in out
    assert "kept edited weight 1 of the story “A workflow pauses" in out
    out = import_pages(
        seed_files, "--overwrite-moderated", capture=django_capture_on_commit_callbacks
    )
    cell.refresh_from_db()
    story.refresh_from_db()
    assert cell.rationale != "Re-checked: waitForEvent." and story.weight == 3
    assert "overwrote edited rationale of Inngest" in out
    assert "overwrote edited weight 1 of the story “A workflow pauses" in out


@pytest.mark.django_db
def test_an_overview_page_alone_keeps_published_detail_and_weights(
    seeded_arena, seed_files, django_capture_on_commit_callbacks
):
    overview = [p for p in seed_files if Path(p).name.startswith("003_")]
    evidence = Evidence.objects.count()
    weights = dict(Story.objects.values_list("pk", "weight"))
    out = import_pages(overview, capture=django_capture_on_commit_callbacks)
    assert out.startswith("Unchanged:")
    assert Evidence.objects.count() == evidence > 0
    assert dict(Story.objects.values_list("pk", "weight")) == weights


@pytest.mark.django_db
def test_an_import_that_changes_a_cell_makes_open_forms_stale(seeded_arena, seed_files, tmp_path):
    cell = Cell.objects.get(story__text__startswith=APPROVAL, product__slug="inngest")
    version = cell.version
    old = cell.rationale
    paths = reworded(tmp_path, seed_files, old[:40], "Newly worded: " + old[:26])
    call_command("import_arena_pages", *paths, stdout=io.StringIO())
    cell.refresh_from_db()
    assert cell.rationale.startswith("Newly worded") and cell.version == version + 1


@pytest.mark.django_db
def test_reimport_keeps_a_reworded_story_and_a_renamed_product_and_their_moderation(
    upheld, seed_files, django_capture_on_commit_callbacks
):

    story = Story.objects.get(text__startswith=APPROVAL)
    page_text = story.text
    story_update(story=story, changes={"text": page_text + " (typo fixed)"})
    hatchet = Product.objects.get(slug="hatchet")
    product_update(product=hatchet, changes={"name": "Hatchet.run", "tier": "Challenger"})
    dbos = Product.objects.get(slug="dbos")
    retire_set(dbos, retired=True)
    out = import_pages(seed_files, capture=django_capture_on_commit_callbacks)
    story.refresh_from_db()
    hatchet.refresh_from_db()
    dbos.refresh_from_db()
    assert story.retired_at is None and story.text.endswith("(typo fixed)")
    assert (hatchet.name, hatchet.tier) == ("Hatchet.run", "Challenger")
    assert dbos.retired_at is not None
    assert "kept edited text" in out and "kept edited name Hatchet.run of the product" in out
    assert "kept the product 'DBOS' retired" in out
    assert "retired story" not in out and "restored" not in out
    cell = Cell.objects.get(pk=upheld.cell_id)
    assert (cell.verdict, cell.quality) == ("full", 8)
    assert Story.objects.count() == 53 and Product.objects.count() == 5


@pytest.mark.django_db
def test_renaming_a_category_or_a_product_in_the_admin_recomputes(
    seeded_arena, django_user_model, django_capture_on_commit_callbacks
):

    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    category = Category.objects.filter(arena=seeded_arena).first()
    url = f"/admin/arena/category/{category.pk}/change/"
    data = page_form(admin, url, "category_form", name=category.name + " X")
    with django_capture_on_commit_callbacks(execute=True):
        assert admin.post(url, data).status_code == 302
    row = ProductScore.objects.filter(arena=seeded_arena).first()
    assert category.name + " X" in row.category_scores
    assert category.name not in row.category_scores


@pytest.mark.django_db
def test_renaming_a_persona_slug_in_the_admin_recomputes(
    seeded_arena, django_user_model, django_capture_on_commit_callbacks
):

    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    persona = Persona.objects.get(slug="backend-developer")
    url = f"/admin/arena/persona/{persona.pk}/change/"
    data = page_form(admin, url, "persona_form", slug="backend-engineer")
    with django_capture_on_commit_callbacks(execute=True):
        assert admin.post(url, data).status_code == 302
    row = ProductScore.objects.filter(arena=seeded_arena).first()
    assert (
        "backend-engineer" in row.persona_scores and "backend-developer" not in row.persona_scores
    )
