"""What the uncached arena page no longer works out on every render gives what working it out
gives: static files' URLs looked up once, the dates SQLite hands back parsed once per text and its
statements' placeholders converted once per statement, the matrix's category links encoded once per
table."""

from __future__ import annotations

import gc
import json
import weakref
from datetime import UTC, date, datetime
from urllib.parse import parse_qsl
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.template import Context, Template, engines
from django.utils.http import urlencode
from hypothesis import given, settings
from hypothesis import strategies as st
from whitenoise.storage import CompressedManifestStaticFilesStorage

from stories.models import Cell
from tests.factories import CellFactory
from web.http.staticfiles import StaticFilesStorage
from web.pages.links import MatrixLinks
from web.params import links as query


@pytest.fixture
def manifest_root(tmp_path):
    manifest = {
        "version": "1.1",
        "hash": "0",
        "paths": {"css/site.css": "css/site.0123abcd.css", "js/site.js": "js/site.4567ef89.js"},
    }
    (tmp_path / "staticfiles.json").write_text(json.dumps(manifest))
    return tmp_path


def test_a_static_url_is_the_manifest_storage_s_every_time(manifest_root):
    kept = StaticFilesStorage(location=manifest_root, base_url="/static/")
    plain = CompressedManifestStaticFilesStorage(location=manifest_root, base_url="/static/")
    for name in ["css/site.css", "js/site.js", "css/site.css"]:
        assert kept.url(name) == plain.url(name) != f"/static/{name}"
    assert kept.url("css/site.css") == "/static/css/site.0123abcd.css"


def test_a_file_missing_from_the_manifest_is_still_an_error_every_time(manifest_root):
    kept = StaticFilesStorage(location=manifest_root, base_url="/static/")
    for _ in range(2):
        with pytest.raises(ValueError, match="Missing staticfiles manifest entry"):
            kept.url("css/missing.css")


@pytest.mark.django_db
def test_dates_read_back_from_sqlite_are_the_dates_written():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's converters only")
    days = [date(2026, 3, 1), date(2026, 3, 1), date(2025, 12, 31), None]
    pks = [CellFactory(evidence_as_of=day).pk for day in days]
    read = dict(Cell.objects.filter(pk__in=pks).values_list("pk", "evidence_as_of"))
    assert [read[pk] for pk in pks] == days
    assert all(isinstance(read[pk], date) for pk in pks[:3])


@pytest.mark.django_db
@settings(deadline=None, max_examples=40)
@given(st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8))
def test_a_statement_run_again_finds_what_it_found_the_first_time(needle):
    """(A literal ``%`` is ``%%`` in Django's statements: the converted text is cached, so a
    mistake in it would repeat on every later run of the statement.)"""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's backend only")
    from config.sqlite3.base import _CACHED_UP_TO, _qmark_cached, qmark

    cell = CellFactory(rationale=f"before {needle} after")
    for _ in range(2):
        found = Cell.objects.filter(rationale__contains=needle).values_list("pk", flat=True)
        assert cell.pk in list(found)
        with connection.cursor() as cursor:
            cursor.execute("SELECT %s || '%%' || %s", [needle, "x"])
            assert cursor.fetchone() == (f"{needle}%x",)
    assert qmark("SELECT %s, '100%%' FROM t WHERE a = %s") == "SELECT ?, '100%' FROM t WHERE a = ?"
    long = "SELECT %s" + ", %s" * (_CACHED_UP_TO // 4)
    before = _qmark_cached.cache_info().currsize
    assert qmark(long).count("?") == long.count("%s")
    assert _qmark_cached.cache_info().currsize == before  # (a bulk statement is not kept)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)


@settings(deadline=None)  # (the first example loads the URL patterns)
@given(st.dictionaries(st.text("abcdefghij", min_size=1, max_size=6), _TEXT, max_size=4), _TEXT)
def test_a_category_link_keeps_the_page_s_query_and_adds_its_own(page_query, category):
    url = MatrixLinks("arena", page_query).fold_url(category)
    path, _, written = url.partition("?")
    assert path.endswith("/arenas/arena/")
    pairs = parse_qsl(written, keep_blank_values=True)
    assert pairs == [*page_query.items(), ("fold", category)]
    assert (
        written
        == f"{urlencode(page_query)}{'&' if page_query else ''}{urlencode({'fold': category})}"
    )
    assert query.param_prefix(page_query) + query.one_param("category", category) == (
        "?" + "&".join(p for p in [urlencode(page_query), urlencode({"category": category})] if p)
    )


@settings(deadline=None)
@given(
    st.datetimes(
        min_value=datetime(1000, 1, 1), timezones=st.sampled_from([UTC, ZoneInfo("Europe/Paris")])
    )
)
def test_the_head_s_dates_read_as_the_date_filter_writes_them(moment):
    """(The time zone's: a stored datetime is aware, shown in the current time zone.)"""
    values = {"moment": moment, "day": moment.date()}
    fast = Template(
        "{% load arena_tags %}{{ day|iso_day }} {{ moment|iso_day }}|{{ moment|iso_minute }}|"
        "{{ moment|iso_second }}|{{ none|iso_day }}"
    )
    django = Template(
        '{{ day|date:"Y-m-d" }} {{ moment|date:"Y-m-d" }}|{{ moment|date:"Y-m-d H:i" }}|'
        "{{ moment|date:'Y-m-d\\TH:i:sO' }}|{{ none|date:\"Y-m-d\" }}"
    )
    assert fast.render(Context(values)) == django.render(Context(values))


def test_what_a_page_was_rendered_from_is_let_go_once_it_is_written(rf):
    class Held:
        name = "kept"

    held = Held()
    gone = weakref.ref(held)
    template = engines["django"].from_string("{% with name=held.name %}{{ name }}{% endwith %}")
    collecting = gc.isenabled()
    gc.disable()  # (freed by reference counting alone, not by a collection)
    try:
        assert template.render({"held": held}, rf.get("/")) == "kept"
        del held
        assert gone() is None
    finally:
        if collecting:
            gc.enable()


def test_the_web_process_collects_garbage_as_its_renders_need():
    """The WSGI module, as gunicorn loads it in each worker: what loading made frozen (the
    collector's full collections skip it), the young generation's threshold raised."""
    import subprocess
    import sys

    code = "import gc, config.wsgi\nprint(gc.get_threshold()[0], gc.get_freeze_count() > 50_000)\n"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["10000", "True"]
