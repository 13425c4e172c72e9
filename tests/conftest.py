"""Shared fixtures: the seed arena as the site ships it, and a large generated arena."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from arena.importer.parser import read_arena


def seed_paths() -> list[str]:
    return sorted(str(p) for p in Path(settings.BUNDLED_ARENA_DIR).glob("*.txt"))


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def seed_files() -> list[str]:
    return seed_paths()


@pytest.fixture(scope="session")
def seed_record(seed_files):
    """The seed pages parsed (plain records, no database)."""
    return read_arena(seed_files)


@pytest.fixture
def seeded_arena(db, seed_files, django_capture_on_commit_callbacks):
    """The seed arena imported as `make run` loads it, with its scores computed."""
    from arena.models import Arena

    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_arena_pages", *seed_files, stdout=open("/dev/null", "w"))
    return Arena.objects.get(slug="durable-execution-engines")


@pytest.fixture
def big_arena(db):
    """A generated arena of 30 products × 300 stories, for query-count assertions."""
    from arena.generate import arena_generate

    return arena_generate(slug="big", products=30, stories=300)


@pytest.fixture
def moderator(django_user_model):
    """A staff user in the Moderators group (made again if a transactional test's flush removed the
    group its migration creates)."""
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("mod", password="pw", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="Moderators")[0])
    return user
