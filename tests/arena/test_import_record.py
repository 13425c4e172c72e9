"""A re-import compares every part of a cell and keeps a moderator's or an editor's work whole: the
judgement, the rationale and the evidence. "Edited since" is the server's own time of the import
that last wrote the cell, never a date the pages claim; pages dated in the future are refused. The
report counts what changed per kind, and an import that says "Unchanged" changed nothing."""

import io
import json
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from arena.models import AdjacentArena, Arena, Category, Persona
from arena.services import structure_save
from core.conflicts import EditConflict
from flags.forms import DecisionForm, FlagForm
from flags.services import flag_submit, review_item_uphold
from stories import freshness
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import evidence_update
from tests.arena.test_arena_file import export, import_file, write
from web.http.clients import client_hash

pytestmark = pytest.mark.django_db

APPROVAL = "A workflow pauses for human approval"
SOURCE = "https://example.com/changelog#approvals"
QUOTE = "The changelog documents a built-in approval step that resumes from a webhook."


def import_pages(paths, *options) -> str:
    out = io.StringIO()
    call_command("import_arena_pages", *paths, *options, stdout=out)
    return out.getvalue()


def version(arena) -> int:
    return Arena.objects.get(pk=arena.pk).content_version


def quotes(cell) -> list[tuple[str, str]]:
    return list(
        Evidence.objects.filter(cell=cell).order_by("position").values_list("source", "quote")
    )


@pytest.fixture
def accepted(seeded_arena, moderator, django_capture_on_commit_callbacks):
    """Inngest's approval cell: an upheld flag that keeps the verdict but accepts the reporter's
    source as new evidence (the value itself is unchanged)."""
    cell = Cell.objects.get(story__text__startswith=APPROVAL, product__slug="inngest")
    assert cell.detail_published and quotes(cell)
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": "missing_evidence",
                "explanation": "The changelog says so, with an example.",
                "source_url": SOURCE,
            }
        ),
        client=client_hash("10.9.9.9"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        review_item_uphold(
            item=flag.item,
            moderator=moderator,
            form=DecisionForm(
                {
                    "note": "The changelog confirms it.",
                    "accept_source": True,
                    "evidence_quote": QUOTE,
                }
            ),
        )
    cell.refresh_from_db()
    assert ("community", QUOTE) in quotes(cell)
    return cell


def test_a_reimport_keeps_evidence_a_moderator_accepted_and_reports_it(
    accepted, seeded_arena, seed_files
):
    evidence = quotes(accepted)
    before = version(seeded_arena)
    out = import_pages(seed_files)
    assert out.startswith("Unchanged: arena 'Durable Execution Engines'"), out
    assert re.search(
        r"kept moderated evidence on Inngest on “A workflow pauses for human approval[^”]*” \(\d{4}-\d\d-\d\d: \d+ quotes?: .*; page says \d+ quotes?: ",
        out,
    ), out
    assert "  cell: 1 kept" in out and "  evidence: 1 kept" in out
    assert quotes(accepted) == evidence
    assert version(seeded_arena) == before  # nothing changed, nothing to refresh
    page = Client().get(accepted.get_absolute_url()).content.decode()
    assert QUOTE in page


def test_overwriting_moderated_evidence_is_recorded_publicly_and_refreshes_the_pages(
    accepted, seeded_arena, seed_files
):
    client = Client()
    assert QUOTE in client.get(accepted.get_absolute_url()).content.decode()
    before = version(seeded_arena)
    out = import_pages(seed_files, "--overwrite-moderated")
    assert "overwrote moderated evidence on Inngest on “A workflow pauses" in out
    assert "  evidence: 1 changed" in out
    assert ("community", QUOTE) not in quotes(accepted)
    change = CellChange.objects.filter(cell=accepted).latest("changed_at")
    assert change.kind == CellChange.Kind.IMPORT_OVERRIDE
    assert "over the upheld flag value" in change.note and "evidence" in change.note
    assert version(seeded_arena) > before
    assert QUOTE not in client.get(accepted.get_absolute_url()).content.decode()
    # taken up by the import: the next one writes over it like any cell
    assert import_pages(seed_files).startswith("Unchanged:")


def test_an_editors_change_of_a_quote_is_kept(seeded_arena, seed_files):
    cell = Cell.objects.filter(story__arena=seeded_arena, evidence__isnull=False).first()
    quote = Evidence.objects.filter(cell=cell).first()
    evidence_update(evidence=quote, changes={"quote": "Reworded after checking the docs again."})
    out = import_pages(seed_files)
    assert "kept moderated evidence on" in out and "1 moderated or edited value(s) kept" in out
    assert "Reworded after checking the docs again." in [q for _, q in quotes(cell)]


def test_a_moderation_outranks_pages_dated_after_it(accepted, seeded_arena, seed_files, tmp_path):
    """The pages' own date does not decide: dated today (after the decision), they still lose to
    it, because no import has written the cell since the moderator did."""
    today = freshness.today().isoformat()
    copies = []
    for path in seed_files:
        copy = tmp_path / Path(path).name
        text = Path(path).read_text()
        copy.write_text(re.sub(r"\b2026-09-16\b", today, text))
        copies.append(str(copy))
    out = import_pages(copies)
    assert "kept moderated evidence on Inngest" in out
    assert ("community", QUOTE) in quotes(accepted)


def test_pages_dated_in_the_future_are_refused_and_nothing_is_imported(seed_files, tmp_path):
    tomorrow = (freshness.today() + timedelta(days=1)).isoformat()
    copies = []
    for path in seed_files:
        copy = tmp_path / Path(path).name
        shutil.copy(path, copy)
        copies.append(str(copy))
    overview = next(p for p in copies if "003_" in p)
    text = Path(overview).read_text()
    Path(overview).write_text(text.replace("updated 2026-09-16", f"updated {tomorrow}", 1))
    with pytest.raises(CommandError) as exc:
        import_pages(copies)
    assert f"{overview}:3: its updated date {tomorrow} is after today" in str(exc.value)
    assert not Arena.objects.exists()


def test_a_file_dated_in_the_future_is_refused_even_by_check(seeded_arena, tmp_path):
    path = tmp_path / "seed.json"
    doc = json.loads(export(seeded_arena.slug, path))
    tomorrow = (freshness.today() + timedelta(days=1)).isoformat()
    doc["cells"][5]["evidence_as_of"] = tomorrow
    write(path, doc)
    before = version(seeded_arena)
    for options in ((), ("--check",)):
        with pytest.raises(CommandError) as exc:
            import_file(path, *options)
        assert f"{path}: /cells/5/evidence_as_of (line " in str(exc.value)
        assert f"{tomorrow} is after today" in str(exc.value)
    assert version(seeded_arena) == before


def test_an_evidence_change_alone_is_imported_reported_and_refreshes_the_pages(
    seeded_arena, tmp_path
):
    path = tmp_path / "seed.json"
    doc = json.loads(export(seeded_arena.slug, path))
    import_file(path)  # (the file states every weight: the first import takes them up)
    cell_doc = next(c for c in doc["cells"] if c["evidence"])
    cell_doc["evidence"][0]["quote"] = "A sharper quote from the same page."
    write(path, doc)
    text = next(s["text"] for s in doc["stories"] if s["key"] == cell_doc["story"])
    cell = Cell.objects.get(story__text=text, product__slug=cell_doc["product"])
    before = version(seeded_arena)
    out = import_file(path)
    assert out.startswith("Updated arena"), out
    assert "  evidence: 1 changed" in out
    assert version(seeded_arena) > before
    again = export(seeded_arena.slug, tmp_path / "after.json")
    assert b"A sharper quote from the same page." in again
    page = Client().get(cell.get_absolute_url()).content.decode()
    assert "A sharper quote from the same page." in page


def test_the_report_counts_each_kind(seeded_arena, tmp_path):
    path = tmp_path / "seed.json"
    doc = json.loads(export(seeded_arena.slug, path))
    import_file(path)
    doc["categories"].append({"name": "Brand new", "blurb": "", "groups": []})
    doc["stories"][0]["category"] = "Brand new"
    doc["stories"][0]["group"] = None
    doc["products"][0]["tier"] = "Challenger"
    gone = doc["stories"].pop()
    doc["cells"] = [c for c in doc["cells"] if c["story"] != gone["key"]]
    write(path, doc)
    out = import_file(path)
    assert "  category: 1 added" in out, out
    assert "  product: 1 changed" in out
    assert "  story: 1 changed, 1 retired" in out
    assert Category.objects.filter(arena=seeded_arena, name="Brand new").exists()


# ---------------------------------------------------------------- structure edits


def test_a_reimport_keeps_admin_edits_of_structure_and_reports_them(seeded_arena, seed_files):
    category = Category.objects.filter(arena=seeded_arena).order_by("position").first()
    category.blurb = "Reworded by an editor."
    structure_save(category, changed=["blurb"])
    persona = Persona.objects.get(slug="backend-developer")
    persona.label = "Backend engineer"
    structure_save(persona, changed=["label"])
    arena = Arena.objects.get(pk=seeded_arena.pk)
    arena.description = "Edited in the admin."
    structure_save(arena, changed=["description"])
    added = AdjacentArena(
        arena=arena, name="Queues", product_count=4, leader="Kafka", shares="", position=99
    )
    structure_save(added, changed=[])
    out = import_pages(seed_files)
    assert f"kept edited blurb 'Reworded by an editor.' of the category {category.name!r}" in out
    assert "kept edited label 'Backend engineer' of the persona 'backend-developer'" in out
    assert "kept edited description 'Edited in the admin.' of the arena" in out
    assert "kept the adjacent arena 'Queues', added or edited in the admin" in out
    for line in ("category: 1 kept", "persona: 1 kept", "arena: 1 kept", "adjacent arena: 1 kept"):
        assert f"  {line}" in out, out
    assert Category.objects.get(pk=category.pk).blurb == "Reworded by an editor."
    assert Persona.objects.get(pk=persona.pk).label == "Backend engineer"
    assert Arena.objects.get(pk=arena.pk).description == "Edited in the admin."
    assert AdjacentArena.objects.filter(arena=arena, name="Queues").exists()
    page = Client().get(f"/arenas/{arena.slug}/").content.decode()
    assert "Queues" in page and "Edited in the admin." in page
    # told to, the pages win: recorded as overwritten, then imported like any row
    out = import_pages(seed_files, "--overwrite-moderated")
    assert (
        f"overwrote edited blurb 'Reworded by an editor.' of the category {category.name!r}" in out
    )
    assert not AdjacentArena.objects.filter(arena=arena, name="Queues").exists()
    assert Category.objects.get(pk=category.pk).blurb != "Reworded by an editor."
    assert import_pages(seed_files).startswith("Unchanged:")


def test_an_import_that_changes_a_structure_row_makes_an_open_admin_form_stale(
    seeded_arena, tmp_path
):
    path = tmp_path / "seed.json"
    doc = json.loads(export(seeded_arena.slug, path))
    import_file(path)
    category = Category.objects.filter(arena=seeded_arena).order_by("position").first()
    read = category.version
    doc["categories"][0]["blurb"] = "What the new research round says."
    write(path, doc)
    assert "  category: 1 changed" in import_file(path)
    category.blurb = "An editor's words, typed into a form opened before the import."
    with pytest.raises(EditConflict) as exc:
        structure_save(category, changed=["blurb"], base_version=read, base={"blurb": "old"})
    assert "What the new research round says." in exc.value.message()


def test_the_report_after_a_moderator_changed_evidence_and_an_editor_a_category(
    accepted, seeded_arena, seed_files
):
    category = Category.objects.filter(arena=seeded_arena).order_by("position").first()
    category.blurb = "Reworded by an editor."
    structure_save(category, changed=["blurb"])
    out = import_pages(seed_files)
    print(out)  # (the closing note quotes it: pytest -s shows it)
    lines = out.splitlines()
    assert lines[0].startswith("Unchanged: arena 'Durable Execution Engines'")
    assert "  category: 1 kept" in lines and "  cell: 1 kept" in lines
    assert "  evidence: 1 kept" in lines
    assert any(
        line.startswith("  kept moderated evidence on Inngest on “A workflow") for line in lines
    )
    assert any(line.startswith("  kept edited blurb 'Reworded by an editor.'") for line in lines)
    assert "  2 moderated or edited value(s) kept; --overwrite-moderated" in out


def test_a_category_and_an_adjacent_arena_renamed_in_the_admin_stay_renamed(
    seeded_arena, seed_files, tmp_path
):
    category = Category.objects.filter(arena=seeded_arena).order_by("position").first()
    old_name, stories = category.name, category.stories.count()
    category.name = "Renamed by an editor"
    structure_save(category, changed=["name"])
    adjacent = AdjacentArena.objects.filter(arena=seeded_arena).first()
    old_adjacent = adjacent.name
    adjacent.name = "Neighbours, renamed"
    structure_save(adjacent, changed=["name"])
    counts = (Category.objects.count(), AdjacentArena.objects.count())
    out = import_pages(seed_files)
    assert f"kept edited name 'Renamed by an editor' of the category {old_name!r}" in out
    assert f"kept edited name 'Neighbours, renamed' of the adjacent arena {old_adjacent!r}" in out
    assert (Category.objects.count(), AdjacentArena.objects.count()) == counts  # no duplicate
    assert Category.objects.get(pk=category.pk).stories.count() == stories
    # the export states the new names; imported back, it finds the same rows
    path = tmp_path / "renamed.json"
    before = export(seeded_arena.slug, path)
    import_file(path)
    assert (Category.objects.count(), AdjacentArena.objects.count()) == counts
    assert export(seeded_arena.slug, tmp_path / "again.json") == before


def test_a_persona_whose_slug_an_admin_changed_is_found_and_keeps_it(seeded_arena, seed_files):
    persona = Persona.objects.get(slug="backend-developer")
    stories = Story.objects.filter(persona=persona).count()
    persona.slug = "backend-engineer"
    structure_save(persona, changed=["slug"])
    count = Persona.objects.count()
    out = import_pages(seed_files)
    assert "kept edited slug 'backend-engineer' of the persona 'backend-developer'" in out
    assert Persona.objects.count() == count  # no second persona with the pages' slug
    assert Story.objects.filter(persona__slug="backend-engineer").count() == stories
