"""A restore is served as restored: gunicorn (with its page cache) behind a real Varnish, a backup,
then an uphold that changes a verdict, read and kept by both caches; ``manage.py restore --force``
of the older backup says what it did to the caches, and both the app and Varnish then serve the
older verdict, also after more changes (the restored database repeats the content versions the
discarded pages were kept under)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.core.management import call_command

from arena.models import Arena
from flags.forms import DecisionForm, FlagForm
from flags.services import flag_submit, review_item_uphold
from stories.models import Cell
from stories.values import Verdict
from tests.infra.services import LiveServer, database_url
from tests.integration.test_varnish import TOKEN, VARNISHD, Varnish, cached_twice, fetch

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        VARNISHD is None, reason="varnishd is not installed (apt-get install varnish)"
    ),
]

NOTE = "Not supported, the docs say."


@pytest.fixture
def site(seeded_arena) -> Iterator[tuple[LiveServer, Varnish]]:
    """gunicorn on the test database with its page cache (in its own process: the restore cannot
    reach it), Varnish in front requiring the purge token."""
    env = {
        "DATABASE_URL": database_url(),
        "CONN_MAX_AGE": "0",  # (the restore replaces the database under it)
        "CELERY_BROKER_URL": None,
        "SECRET_KEY": settings.SECRET_KEY,
        "PAGE_CACHE": "1",
        # configured to purge, as a web in front of Varnish is: it reads a page's version on every
        # request (this one changes nothing: the test's process purges)
        "HTTP_CACHE_PURGE_URLS": "http://127.0.0.1:9/",
    }
    server = LiveServer(env, server="gunicorn", workers=1, threads=4, ready_path="/healthz")
    varnish = Varnish(server.port, env={"VARNISH_PURGE_TOKEN": TOKEN})
    try:
        server.start(timeout=60)
        varnish.start()
        yield server, varnish
    finally:
        varnish.close()
        server.close()


def verdict_seen(base: str, cell: Cell) -> tuple[str, bool]:
    """The cell's verdict as its markdown page states it, and whether its page shows the note."""
    status, _, text = fetch(base, f"/cells/{cell.pk}.md")
    assert status == 200, status
    line = next(x for x in text.splitlines() if x.startswith("- Verdict: "))
    status, _, page = fetch(base, f"/cells/{cell.pk}/")
    assert status == 200, status
    return line.removeprefix("- Verdict: "), NOTE in page


def file_flag(cell: Cell, client: str):
    data = FlagForm(
        {"reason": "wrong_verdict", "explanation": "The docs say this is not supported."}
    )
    return flag_submit(cell=cell, form=data, client=client)


def test_a_restore_serves_the_older_verdict_through_the_app_and_varnish(
    site, seeded_arena, moderator, settings, tmp_path
):
    server, varnish = site
    settings.HTTP_CACHE_PURGE_URLS = [varnish.url + "/"]
    settings.HTTP_CACHE_PURGE_TOKEN = TOKEN
    cells = Cell.objects.filter(story__arena=seeded_arena, verdict=Verdict.FULL).order_by("pk")
    cell, *others = cells[:12]
    flag = file_flag(cell, "restore-test")
    dump = tmp_path / "before.backup"
    call_command("backup", str(dump), stdout=io.StringIO())
    assert verdict_seen(server.url, cell) == ("full", False)

    review_item_uphold(
        item=flag.item,
        moderator=moderator,
        form=DecisionForm({"note": NOTE, **{"verdict": "none"}}),
    )
    discarded = Arena.objects.get(pk=seeded_arena.pk).content_version
    for base in (server.url, varnish.url):  # the newer verdict, now kept by both
        assert verdict_seen(base, cell) == ("none", True)
    for path in (f"/cells/{cell.pk}/", f"/cells/{cell.pk}.md"):
        cached_twice(varnish.url, path)

    out, err = io.StringIO(), io.StringIO()
    call_command("restore", str(dump), force=True, stdout=out, stderr=err)
    assert err.getvalue() == ""
    lines = out.getvalue().splitlines()
    assert lines[0] == f"Restored the database from {dump}."
    assert lines[1].startswith(f"page cache: versions moved past {discarded} (new cache epoch ")
    assert lines[1].endswith("; HTTP caches banned: 1 of 1")

    assert verdict_seen(varnish.url, cell) == ("full", False)
    assert verdict_seen(server.url, cell) == ("full", False)
    # changes (a flag each) until the arena's version is past the discarded one: none of them
    # meets a page of the discarded timeline
    for n, other in enumerate(others):
        file_flag(other, f"restore-test-{n}")
        assert verdict_seen(server.url, cell) == ("full", False)
        assert verdict_seen(varnish.url, cell) == ("full", False)
        if Arena.objects.get(pk=seeded_arena.pk).content_version > discarded:
            break
    else:
        pytest.fail("the changes never took the arena's version past the discarded one")


def test_a_restore_names_an_http_cache_it_could_not_ban(site, seeded_arena, settings, tmp_path):
    server, varnish = site
    settings.HTTP_CACHE_PURGE_URLS = [varnish.url + "/", varnish.url + "/"]
    settings.HTTP_CACHE_PURGE_TOKEN = "not-the-token"
    dump = tmp_path / "before.backup"
    call_command("backup", str(dump), stdout=io.StringIO())
    out, err = io.StringIO(), io.StringIO()
    call_command("restore", str(dump), force=True, stdout=out, stderr=err)
    assert out.getvalue() == f"Restored the database from {dump}.\n"
    assert (
        err.getvalue()
        .rstrip()
        .endswith(
            f"HTTP caches banned: 0 of 2; not banned: {varnish.url}/, {varnish.url}/"
            " (ban them by hand: varnishadm ban obj.status != 0)"
        )
    )
