"""A re-import reshapes categories and sub-groups as the pages now list them, leaving no orphan."""

import io
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from arena.models import SubGroup
from stories.models import Story

APPROVAL = "A workflow pauses for human approval"


def pages_with(tmp_path: Path, seed_files, old: str, new: str) -> list[str]:
    paths = []
    for src in seed_files:
        dst = tmp_path / Path(src).name
        shutil.copy(src, dst)
        dst.write_text(dst.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        paths.append(str(dst))
    return paths


def reimport(paths, capture) -> str:
    out = io.StringIO()
    with capture(execute=True):
        call_command("import_arena_pages", *paths, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_a_renamed_sub_group_replaces_the_old_one(
    seeded_arena, seed_files, tmp_path, django_capture_on_commit_callbacks
):
    paths = pages_with(tmp_path, seed_files, "\nApprovals\n", "\nSign-offs\n")
    reimport(paths, django_capture_on_commit_callbacks)
    groups = SubGroup.objects.filter(category__arena=seeded_arena)
    assert not groups.filter(name="Approvals").exists()
    story = Story.objects.get(text__startswith=APPROVAL)
    assert story.subgroup.name == "Sign-offs"
    # every sub-group is one the pages list, in page order: none parked out of the way
    for category in seeded_arena.categories.all():
        positions = sorted(category.subgroups.values_list("position", flat=True))
        assert positions == list(range(len(positions))), category.name
