"""`import_arena_pages` builds the arena from the seeds: idempotent and atomic."""

import io
import subprocess
import sys
from pathlib import Path

import pytest
from django.core import serializers
from django.core.management import CommandError, call_command

from arena.models import AdjacentArena, Arena, Category, Persona, ProductScore, SubGroup
from products.models import Product
from stories.models import Cell, CellChange, Evidence, Story

MODELS = [
    Arena,
    Category,
    SubGroup,
    Persona,
    AdjacentArena,
    Product,
    Story,
    Cell,
    Evidence,
    CellChange,
    ProductScore,
]


def snapshot() -> str:
    return "".join(serializers.serialize("json", m.objects.order_by("pk")) for m in MODELS)


def run_import(*files) -> str:
    out = io.StringIO()
    call_command("import_arena_pages", *files, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_import_builds_the_arena(seeded_arena):
    arena = seeded_arena
    assert arena.name == "Durable Execution Engines"
    assert arena.stories.count() == 53
    assert Cell.objects.filter(story__arena=arena).count() == 318
    assert Cell.objects.filter(story__arena=arena, detail_published=True).count() == 202
    assert list(Product.objects.filter(arena=arena).values_list("slug", flat=True)) == [
        "temporal",
        "inngest",
        "trigger-dev",
        "restate",
        "hatchet",
        "dbos",
    ]
    trig = Product.objects.get(slug="trigger-dev")
    assert (trig.tier, trig.stars, trig.npm_weekly, trig.pypi_weekly) == (
        "free-tier",
        16300,
        539200,
        None,
    )
    assert str(arena.updated) == "2026-09-16"
    story = Story.objects.get(text__startswith="A workflow pauses for human approval")
    assert (story.persona.slug, story.weight, story.category.name, story.subgroup.name) == (
        "backend-developer",
        3,
        "Human in the loop",
        "Approvals",
    )
    assert Persona.objects.get(slug="ai-native").label == "ai-native user"
    # a cell that no head-to-head details keeps its verdict, without rationale
    temporal = Cell.objects.get(
        story__text__startswith="I run LLM agent loops", product__slug="temporal"
    )
    assert (temporal.verdict, temporal.proof, temporal.quality, temporal.detail_published) == (
        "full",
        "community",
        9,
        False,
    )
    inngest = Cell.objects.get(
        story__text__startswith="I run LLM agent loops", product__slug="inngest"
    )
    assert inngest.rationale.startswith("Inngest has dedicated docs for durable agent loops")
    assert inngest.evidence.count() == 11
    assert inngest.evidence.order_by("position").first().source == "claimed-docs"
    assert ProductScore.objects.filter(arena=arena).count() == 6
    assert arena.adjacent.count() == 4


@pytest.mark.django_db
def test_stories_without_a_published_weight_get_the_default_and_are_named(seed_files):
    out = run_import(*seed_files)
    assert "no page gives the weight of 'Get AI-generated insights" in out
    assert "no page gives the weight of 'Prevent my data from being used to train AI models'" in out
    unweighted = Story.objects.filter(weight_published=False)
    assert sorted(s.text[:20] for s in unweighted) == [
        "Get AI-generated ins",
        "Prevent my data from",
    ]
    assert {s.weight for s in unweighted} == {1}


@pytest.mark.django_db
def test_reimport_changes_nothing(seeded_arena, seed_files):
    before = snapshot()
    out = run_import(*reversed(seed_files))  # any order
    assert out.startswith("Unchanged: arena 'Durable Execution Engines'")
    assert snapshot() == before


def _copy(tmp_path: Path, seed_files, name: str, old: str, new: str) -> list[str]:
    out = []
    for src in seed_files:
        text = Path(src).read_text(encoding="utf-8")
        if Path(src).name.startswith(name):
            assert old in text
            text = text.replace(old, new, 1)
        dst = tmp_path / Path(src).name
        dst.write_text(text, encoding="utf-8")
        out.append(str(dst))
    return out


@pytest.mark.django_db
def test_malformed_import_fails_with_file_line_and_imports_nothing(tmp_path, seed_files):
    files = _copy(
        tmp_path, seed_files, "002", "   Restate✓fullcommunity9/10", "   Restate✓fullcommunity90/10"
    )
    with pytest.raises(CommandError) as exc:
        run_import(*files)
    assert "002_88e97927e0f2f4d7.txt:" in str(exc.value)
    assert "quality 90/10 is outside 0–10" in str(exc.value)
    assert Arena.objects.count() == 0 and Cell.objects.count() == 0 and Story.objects.count() == 0


@pytest.mark.django_db
def test_malformed_reimport_leaves_the_arena_as_it_was(seeded_arena, tmp_path, seed_files):
    before = snapshot()
    files = _copy(
        tmp_path,
        seed_files,
        "003",
        "| fullX 9/10 | fullX 9/10 | fullX 8/10",
        "| fullX 9/10 | maybeX 9/10 | fullX 8/10",
    )
    with pytest.raises(
        CommandError, match=r"003_7eccd58d0548597c.txt:\d+: unknown verdict 'maybe'"
    ):
        run_import(*files)
    assert snapshot() == before


def test_command_exits_non_zero_on_a_malformed_file(tmp_path, seed_files):

    files = _copy(tmp_path, seed_files, "001", "Trigger.dev vs Hatchet", "Trigger.dev vs Nobody")
    proc = subprocess.run(
        [sys.executable, "manage.py", "import_arena_pages", *files],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"},
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode != 0
    assert f"{files[1]}:1: 'Nobody' is not a product of the arena" in proc.stderr


@pytest.mark.django_db
def test_changed_verdict_on_reimport_is_recorded(
    seeded_arena, tmp_path, seed_files, django_capture_on_commit_callbacks
):
    old = "| ai-native | partialT 6/10 | partialT 5/10 | partialT 6/10 | fullC 7/10 | partialT 5/10 | fullT 8/10 |"
    new = "| ai-native | fullC 7/10 | partialT 5/10 | partialT 6/10 | fullC 7/10 | partialT 5/10 | fullT 8/10 |"
    files = _copy(tmp_path, seed_files, "003", old, new)
    with django_capture_on_commit_callbacks(execute=True):
        out = run_import(*files)
    assert out.startswith("Updated arena")
    change = CellChange.objects.get()
    assert (change.kind, change.old_verdict, change.new_verdict, change.new_quality) == (
        "import",
        "partial",
        "full",
        7,
    )
    assert change.cell.product.slug == "temporal"
