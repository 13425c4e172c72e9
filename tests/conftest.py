"""Shared fixtures: the seed arena as the site ships it, a large generated arena, a moderator.

The two arenas are expensive (the seed import, 30 products × 300 stories), so they are written once
and committed, outside any test's transaction, and each test's rollback leaves them as they were.
Before a test opens its transaction, the database is brought to exactly the arenas the test asks for
(``seeded_arena``, ``big_arena``, directly, through another fixture or as a parameter naming the
fixture): a test that asks for neither still starts from an empty database. Tests are grouped by the
arenas they ask for, so each arena is built about once per session; a transactional test's flush
empties the database and the next test that needs an arena builds it again — on SQLite by copying
back a snapshot of the database taken when those arenas were first built into an empty one
(SQLite's online backup: milliseconds instead of seconds of import and recompute).

Isolation is by rollback: a test runs in a transaction (``django_db``) that is rolled back after it.
Only a test whose writes another process or connection must see (a gunicorn or Celery worker
subprocess, threads with their own connections) is transactional, and pytest-django flushes the
database after it. Nothing here deletes rows of the append-only tables (``CellChange``,
``ModeratorAction``), which PostgreSQL's row triggers refuse to update or delete: emptying the
database, after a transactional test or to change the committed arenas, is a table flush — a
TRUNCATE on PostgreSQL, which those ``FOR EACH ROW`` triggers do not cover, and a DELETE per table
on SQLite, which has no trigger (``_arenas_clear``).
"""

from __future__ import annotations

import collections
import io
import sqlite3
import time
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.core.cache import caches
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection
from django.test import TestCase
from django.test.client import ClientMixin
from django_otp import DEVICE_ID_SESSION_KEY
from hypothesis import is_hypothesis_test
from pytest_django.fixtures import Settings

from arena.imports.pages import read_arena
from arena.imports.reading import ArenaRecord
from arena.models import Arena
from config.admin_site import LAST_SEEN
from flags import mailing
from ops.generate import arena_generate
from tests.factories import ModeratorFactory, totp_device
from web.http import pagekeys
from web.http.pagecache import recent_pages

SEED_SLUG = "durable-execution-engines"
BIG_SLUG = "big"


def seed_paths() -> list[str]:
    return sorted(str(p) for p in Path(settings.BUNDLED_ARENA_DIR).glob("*.txt"))


def _seed_build() -> None:
    call_command("import_arena_pages", *seed_paths(), stdout=io.StringIO())


def _big_build() -> None:
    arena_generate(slug=BIG_SLUG, products=30, stories=300)


# fixture name → (arena slug, builder); built in this order when a test wants both
SESSION_ARENAS = {
    "big_arena": (BIG_SLUG, _big_build),
    "seeded_arena": (SEED_SLUG, _seed_build),
}

# The apps whose tables hold arenas and everything that hangs off them (users, groups, sessions and
# the like are kept).
_ARENA_APPS = ("arena", "products", "stories", "flags")


def _arena_tables() -> list[str]:
    tables = {
        model._meta.db_table
        for label in _ARENA_APPS
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }
    return sorted(tables)


def _arenas_clear() -> None:
    """Empty every arena table the way the test runner's flush does, never row by row.

    The public record (``CellChange``) and the moderators' audit log (``ModeratorAction``) are
    append-only: on PostgreSQL a row trigger (``BEFORE UPDATE OR DELETE ... FOR EACH ROW``) refuses
    to change or delete any of their rows, whoever asks. A table flush is a TRUNCATE there, which
    row triggers do not see, so wiping the test database stays possible without weakening them;
    on SQLite (no trigger) it is a DELETE per table. CASCADE takes along any table that refers to
    one of these, so that a new model elsewhere cannot make the flush fail.

    Inside a test's transaction the flush is rolled back with it. PostgreSQL refuses to TRUNCATE a
    table while checks of the (deferred) foreign keys are pending for it in the transaction, so
    those are made first; every deferrable constraint here is such a key, deferred again after."""
    sql = connection.ops.sql_flush(no_style(), _arena_tables(), allow_cascade=True)
    deferred = connection.vendor == "postgresql" and connection.in_atomic_block
    if deferred:
        sql = ["SET CONSTRAINTS ALL IMMEDIATE", *sql, "SET CONSTRAINTS ALL DEFERRED"]
    connection.ops.execute_sql_flush(sql)


def _wanted(item: pytest.Item) -> tuple[str, ...]:
    """The session arenas ``item`` asks for, in build order."""
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        # ``request.getfixturevalue(param)`` with the fixture's name as the parameter
        names.update(v for v in callspec.params.values() if isinstance(v, str))
    return tuple(name for name in SESSION_ARENAS if name in names)


_checked = {"reused": False}
# SQLite: the whole database as it was right after the arenas named by the key were built into an
# empty one
_snapshots: dict[tuple[str, ...], sqlite3.Connection] = {}


def _snapshot_restore(key: tuple[str, ...]) -> bool:
    """Copy back the snapshot of ``key``'s arenas over an empty SQLite database; False if none."""
    snapshot = _snapshots.get(key)
    if snapshot is None or connection.vendor != "sqlite":
        return False
    connection.ensure_connection()
    snapshot.backup(connection.connection)
    ContentType.objects.clear_cache()  # its ids are the snapshot's now
    return True


def _snapshot_take(key: tuple[str, ...]) -> None:
    if connection.vendor == "sqlite" and key not in _snapshots:
        snapshot = sqlite3.connect(":memory:", check_same_thread=False)
        connection.connection.backup(snapshot)
        _snapshots[key] = snapshot


def _arenas_ensure(wanted: Iterable[str]) -> None:
    """Make the committed database hold exactly the session arenas ``wanted``."""
    wanted = list(wanted)
    slugs = {SESSION_ARENAS[name][0] for name in wanted}
    present = set(Arena.objects.values_list("slug", flat=True))
    if not _checked["reused"]:
        # a database kept from an earlier run (--reuse-db) may hold arenas of older seed pages
        _checked["reused"] = True
        present.add("")
    if not present <= slugs:
        _arenas_clear()
        present = set()
    key = tuple(wanted)
    if not key or present == slugs or (not present and _snapshot_restore(key)):
        return
    for name in wanted:
        slug, build = SESSION_ARENAS[name]
        if slug not in present:
            # outside any transaction, the import's on-commit callbacks (the score recompute, an
            # eager Celery task here) run as the import commits
            build()
    if not present:
        _snapshot_take(key)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[object], request: pytest.FixtureRequest
) -> Generator[None, object, object]:
    # ``_django_db_helper`` (pytest-django) opens the test's transaction, or starts a transactional
    # test: the last moment at which writes are committed rather than rolled back. Were it renamed,
    # ``seeded_arena`` and ``big_arena`` would build inside the test instead (slower, still right).
    if fixturedef.argname == "_django_db_helper":
        with request.getfixturevalue("django_db_blocker").unblock():
            _arenas_ensure(_wanted(request.node))
    return (yield)


def _unique_node_ids(items: list[pytest.Item]) -> None:
    """schemathesis gives every operation's test the same node id; pytest-xdist tells tests apart
    by node id, so each gets its name (``test_api_as_anonymous[GET /api/arenas/]``) in its id."""
    for item in items:
        if "[" in item.name and not item.nodeid.endswith("]"):
            assert item.parent is not None  # only the session has no parent
            item._id = item.parent.id.child(item.name)  # pytest keeps a node's id in ``_id``


def _pure_means_no_database(items: list[pytest.Item]) -> None:
    """A test marked ``pure`` is left out of the PostgreSQL pass, so it must not reach a database."""
    for item in items:
        if item.get_closest_marker("pure") and (
            item.get_closest_marker("django_db")
            or {"db", "transactional_db", "live_server", *SESSION_ARENAS}
            & set(getattr(item, "fixturenames", ()))
        ):
            raise pytest.UsageError(f"{item.nodeid} is marked pure but uses the database")


def _transactional(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    marker = item.get_closest_marker("django_db")
    return (
        "transactional_db" in names
        or "live_server" in names
        or bool(marker and (marker.kwargs.get("transaction") or marker.args[:1] == (True,)))
    )


def _cost(item: pytest.Item) -> int:
    """A rough weight: a browser test or a property test (many examples) costs the most, then a
    test whose writes another process sees (servers, workers), then an ordinary one."""
    if item.get_closest_marker("e2e") or is_hypothesis_test(getattr(item, "obj", None)):
        return 10
    return 3 if _transactional(item) or item.get_closest_marker("integration") else 1


def _long_files_first(items: list[pytest.Item]) -> None:
    """pytest-xdist (``--dist loadfile --no-loadscope-reorder``) hands the workers whole files in
    the order of the collection; the files marked long go first, then the others by their cost,
    so that the run does not end with one worker still on a long file while the other idles. The
    order of tests within a file is kept."""
    cost: collections.Counter[str] = collections.Counter()
    long: set[str] = set()
    for item in items:
        path = item.nodeid.split("::")[0]
        cost[path] += _cost(item)
        if item.get_closest_marker("long"):
            long.add(path)
    items.sort(
        key=lambda item: (item.nodeid.split("::")[0] not in long, -cost[item.nodeid.split("::")[0]])
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Within pytest-django's order, run the tests that share their arenas one after another:
    first those that ask for none, then big only, both, seed only (one rebuild in all)."""
    _unique_node_ids(items)
    _pure_means_no_database(items)
    rank = {(): 0, ("big_arena",): 1, ("big_arena", "seeded_arena"): 2, ("seeded_arena",): 3}

    def group(item: pytest.Item) -> bool:
        # the non-transactional database tests, which pytest-django runs first
        names = getattr(item, "fixturenames", ())
        marker = item.get_closest_marker("django_db")
        return (marker is not None or "db" in names) and not _transactional(item)

    slots = [i for i, item in enumerate(items) if group(item)]
    ordered = sorted((items[i] for i in slots), key=lambda item: rank[_wanted(item)])
    for i, item in zip(slots, ordered, strict=True):
        items[i] = item
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: a file runs in one worker anyway
        _long_files_first(items)


def _arena(request: pytest.FixtureRequest, name: str) -> Arena:
    slug, build = SESSION_ARENAS[name]
    request.getfixturevalue("db")
    arena = Arena.objects.filter(slug=slug).first()
    if arena is None:
        # asked for in a way ``_wanted`` cannot see: build it inside this test
        with TestCase.captureOnCommitCallbacks(execute=True):
            build()
        arena = Arena.objects.get(slug=slug)
    return arena


@pytest.fixture(autouse=True)
def _fresh_page_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's database starts its arenas' content versions afresh (a rollback or flush undoes
    the bumps), so a page cached by an earlier test under the same version must not be served.
    Each request reads its page's content version (tests/web/http/test_caching.py remembers them)."""
    caches["pages"].clear()
    recent_pages().clear()
    pagekeys.VERSIONS.clear()
    monkeypatch.setattr(pagekeys, "VERSION_SECONDS", 0.0)


@pytest.fixture(autouse=True)
def _fresh_notice_kicks() -> None:
    """A test's first commit of a notice sends its task, whatever the test before it sent."""
    mailing.KICKS.forget()


@pytest.fixture(autouse=True)
def _fast_hashing(settings: Settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _force_login_passes_the_second_factor(monkeypatch: pytest.MonkeyPatch) -> None:
    """``client.force_login(user)`` signs a user in without their password; a staff user's session
    is then also verified by an authenticator (made for them if they have none), as if they had
    typed its code: the admin asks every staff session for a second factor (config.admin_site).
    The tests of that sign-in itself log in through its pages."""
    original = ClientMixin.force_login

    def force_login(self: ClientMixin, user: Any, backend: str | None = None) -> None:
        original(self, user, backend)
        if user.is_staff:
            session = self.session
            session[DEVICE_ID_SESSION_KEY] = totp_device(user).persistent_id
            # a session in use: its first request does not write it (queries counted stay even)
            session[LAST_SEEN] = time.time()
            session.set_expiry(0)
            session.save()

    monkeypatch.setattr(ClientMixin, "force_login", force_login)


@pytest.fixture(scope="session")
def seed_files() -> list[str]:
    return seed_paths()


@pytest.fixture(scope="session")
def seed_record(seed_files: list[str]) -> ArenaRecord:
    """The seed pages parsed (plain records, no database)."""
    return read_arena(seed_files)


@pytest.fixture
def seeded_arena(request: pytest.FixtureRequest) -> Arena:
    """The seed arena imported as `make run` loads it, with its scores computed."""
    return _arena(request, "seeded_arena")


@pytest.fixture
def big_arena(request: pytest.FixtureRequest) -> Arena:
    """A generated arena of 30 products × 300 stories, for query-count assertions."""
    return _arena(request, "big_arena")


@pytest.fixture
def moderator(db: None) -> User:
    """A staff user "mod" (password "pw") in the Moderators group."""
    return ModeratorFactory.create(username="mod")
