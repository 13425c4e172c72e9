"""Every public page names the content it shows in ``Surrogate-Key`` (web/http/pagekeys.py), and
every change purges exactly those names at the HTTP cache in front (ops/purge.py): after commit,
once per transaction, nothing at all without ``HTTP_CACHE_PURGE_URLS``, retried while the cache is
down."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator
from contextlib import suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from celery import current_app
from celery.exceptions import Retry
from django.db import transaction
from django.test import TestCase

from arena.models import Arena
from arena.recompute import arena_content_changed
from arena.services import structure_delete
from arena.task_names import PURGE_TASK
from flags.forms import DecisionForm, FlagForm
from flags.services import flag_submit, review_item_uphold
from ops import purge, tasks
from ops.generate import arena_generate
from products.models import Product
from stories.models import Cell, Story
from stories.values import Verdict
from tests.factories import ArenaFactory
from tests.infra.services import free_port
from tests.web.http.test_caching import body, public_urls
from web.http import pagekeys

pytestmark = pytest.mark.django_db

# addresses that are public but follow no content version (Swagger's page): no tags, so the bundled
# VCL does not keep them
UNTAGGED = {"/api/docs/"}
SITE = {"/", "/changes/", "/changes/feed/", "/api/arenas/", "/llms.txt", "/sitemap.xml"}
STATIC = {"/methodology/", "/api/schema/", "/robots.txt", "/sitemap-pages.xml"}


def keys(response) -> list[str]:
    return response.get("Surrogate-Key", "").split()


def test_every_public_page_names_its_content(client, seeded_arena):
    arena_tag = f"arena-{seeded_arena.pk}"
    for url, headers in public_urls(seeded_arena):
        path = url.split("?")[0]
        first = client.get(url, **headers)
        body(first)  # (a stream holds its page's render lock until it has been sent)
        kept = client.get(url, **headers)
        assert first.status_code == kept.status_code == 200, url
        assert keys(first) == keys(kept), url  # a page served from the page cache names it too
        if path in UNTAGGED:
            assert keys(first) == [], url
        elif path in SITE:
            assert keys(first) == ["site"], url
        elif path in STATIC:
            assert keys(first) == ["static"], url
        else:
            assert keys(first)[0] == arena_tag, url


def test_the_pages_of_a_product_story_cell_and_pair_name_them(client, seeded_arena):
    a, b = Product.objects.filter(arena=seeded_arena).order_by("position")[:2]
    story = Story.objects.filter(arena=seeded_arena).order_by("position").first()
    cell = Cell.objects.get(story=story, product=a)
    base, arena = seeded_arena.get_absolute_url(), seeded_arena.pk
    expected = {
        f"{base}products/{a.slug}/": [f"arena-{arena}", f"product-{arena}-{a.slug}"],
        f"{base}products/{a.slug}/badge.svg": [f"arena-{arena}", f"product-{arena}-{a.slug}"],
        f"{base}stories/{story.pk}/": [f"arena-{arena}", f"story-{story.pk}"],
        f"/cells/{cell.pk}/": [f"arena-{arena}", f"cell-{cell.pk}"],
        f"/cells/{cell.pk}.md": [f"arena-{arena}", f"cell-{cell.pk}"],
        f"{base}vs/{a.slug}-vs-{b.slug}/": [
            f"arena-{arena}",
            f"product-{arena}-{a.slug}",
            f"product-{arena}-{b.slug}",
        ],
    }
    for url, tags in expected.items():
        assert keys(client.get(url)) == tags, url


def test_what_a_shared_cache_must_not_keep_names_nothing(client, seeded_arena, moderator):
    cell = Cell.objects.filter(story__arena=seeded_arena).order_by("pk").first()
    assert keys(client.get("/arenas/no-such-arena/")) == []  # a 404
    form = client.get(f"/cells/{cell.pk}/flag/")  # the flag form sets the CSRF cookie
    assert form.status_code == 200 and keys(form) == []
    client.force_login(moderator)
    assert keys(client.get("/admin/")) == []


# --------------------------------------------------------------------------- the purges


class _Cache(BaseHTTPRequestHandler):
    """A stand-in HTTP cache recording every purge; answers ``statuses`` in turn, then 200."""

    seen: list[tuple[str, str, str]]
    statuses: list[int]

    def _purge(self) -> None:
        self.seen.append((self.command, self.path, self.headers.get("Surrogate-Key", "")))
        self.send_response(self.statuses.pop(0) if self.statuses else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PURGE = do_BAN = _purge

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def cache(settings) -> Iterator[type[_Cache]]:
    handler = type("Cache", (_Cache,), {"seen": [], "statuses": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.HTTP_CACHE_PURGE_URLS = [f"http://127.0.0.1:{server.server_address[1]}/"]
    try:
        yield handler
    finally:
        server.shutdown()
        server.server_close()


def test_without_purge_urls_a_change_sends_nothing(settings, seeded_arena, monkeypatch):
    settings.HTTP_CACHE_PURGE_URLS = []
    monkeypatch.setattr(urllib.request, "urlopen", pytest.fail)
    with TestCase.captureOnCommitCallbacks() as callbacks:
        with transaction.atomic():
            arena_content_changed(arena_id=seeded_arena.pk)
    # not even a callback waits for the commit (but the page cache's own forgetting)
    assert callbacks == [pagekeys.VERSIONS.clear]
    assert tasks.http_cache_purge.apply(args=[["arena-1"]]).get() == []


def test_a_change_purges_its_arena_and_the_site_once_after_commit(cache, seeded_arena):
    with TestCase.captureOnCommitCallbacks(execute=True):
        with transaction.atomic():
            arena_content_changed(arena_id=seeded_arena.pk)
            arena_content_changed(arena_id=seeded_arena.pk)
            assert cache.seen == []  # nothing before the commit
    assert cache.seen == [("PURGE", "/", f"arena-{seeded_arena.pk} site")]


def test_a_change_rolled_back_purges_nothing(cache, seeded_arena):
    with TestCase.captureOnCommitCallbacks(execute=True):
        with suppress(RuntimeError), transaction.atomic():
            arena_content_changed(arena_id=seeded_arena.pk)
            raise RuntimeError("undone")
        arena_content_changed(arena_id=seeded_arena.pk + 1000)
    assert cache.seen == [("PURGE", "/", f"arena-{seeded_arena.pk + 1000} site")]


def test_an_upheld_flag_purges_the_cell_its_story_product_and_arena_only(
    cache, seeded_arena, moderator
):
    cell = (
        Cell.objects.select_related("product", "story")
        .filter(story__arena=seeded_arena, verdict=Verdict.FULL)
        .order_by("pk")
        .first()
    )
    with TestCase.captureOnCommitCallbacks(execute=True):  # (each its own transaction)
        other = arena_generate(slug="other-arena", products=2, stories=2)
    with TestCase.captureOnCommitCallbacks(execute=True):
        flag = flag_submit(
            cell=cell,
            form=FlagForm(
                {"reason": "wrong_verdict", "explanation": "The docs say this is not supported."}
            ),
            client="surrogate-test",
        )
    cache.seen.clear()
    with TestCase.captureOnCommitCallbacks(execute=True):
        review_item_uphold(
            item=flag.item,
            moderator=moderator,
            form=DecisionForm({"note": "Not supported.", **{"verdict": "none"}}),
        )
    sent = [set(tags.split()) for _, _, tags in cache.seen]
    arena = seeded_arena.pk
    assert sent[0] == {
        f"cell-{cell.pk}",
        f"story-{cell.story_id}",
        f"product-{arena}-{cell.product.slug}",
        f"arena-{arena}",
        "site",
    }
    assert all(tags <= sent[0] for tags in sent)  # (the recompute's own purge: the arena again)
    assert not any(f"arena-{other.pk}" in tags for tags in sent)


@pytest.fixture
def retried(monkeypatch) -> list[dict]:
    """The retries the purge task asks for (what a worker would run next, after the countdown)."""
    asked: list[dict] = []

    def retry(**kwargs: object) -> Retry:
        asked.append(kwargs)
        return Retry()

    monkeypatch.setattr(tasks.http_cache_purge, "retry", retry)
    return asked


def test_the_purge_task_retries_a_cache_that_is_down(cache, settings, retried):
    cache.statuses[:] = [503]  # down, then back
    with pytest.raises(Retry):
        tasks.http_cache_purge.run(["arena-7", "site"])
    urls = settings.HTTP_CACHE_PURGE_URLS
    assert retried == [{"kwargs": {"tags": ["arena-7", "site"], "urls": urls}, "countdown": 1}]
    assert tasks.http_cache_purge.run(**retried[0]["kwargs"]) == urls  # the retry gets through
    assert [tags for _, _, tags in cache.seen] == ["arena-7 site"] * 2


def test_a_retry_goes_only_to_the_endpoints_that_failed(cache, settings, retried):
    dead = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    settings.HTTP_CACHE_PURGE_URLS = [*settings.HTTP_CACHE_PURGE_URLS, dead]
    with pytest.raises(Retry):
        tasks.http_cache_purge.run(["arena-7"])
    assert retried == [{"kwargs": {"tags": ["arena-7"], "urls": [dead]}, "countdown": 1}]
    assert len(cache.seen) == 1  # the live one was purged once


def test_a_cache_that_never_answers_is_given_up_on_without_breaking_the_change(
    settings, seeded_arena
):
    settings.HTTP_CACHE_PURGE_URLS = [f"http://127.0.0.1:{free_port()}/"]
    with TestCase.captureOnCommitCallbacks(execute=True):  # no broker: one attempt, logged
        arena_content_changed(arena_id=seeded_arena.pk)
    assert Arena.objects.filter(pk=seeded_arena.pk).exists()
    assert purge.http_cache_purge(["site"]) == settings.HTTP_CACHE_PURGE_URLS


def test_with_a_broker_the_purge_is_a_registered_task_sent_by_name(
    cache, settings, seeded_arena, monkeypatch
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent = []
    monkeypatch.setattr(
        current_app, "send_task", lambda name, args, **kw: sent.append((name, args))
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        arena_content_changed(arena_id=seeded_arena.pk)
    assert sent == [(PURGE_TASK, [[f"arena-{seeded_arena.pk}", "site"]])]
    assert PURGE_TASK in current_app.tasks
    assert cache.seen == []  # the worker sends it


def test_a_deleted_arena_purges_its_pages_and_the_site(cache):
    arena = ArenaFactory.create()
    arena_id = arena.pk
    with TestCase.captureOnCommitCallbacks(execute=True):
        structure_delete(arena)
    assert cache.seen == [("PURGE", "/", f"arena-{arena_id} site")]


def test_an_endpoint_that_is_no_url_fails_the_purge_not_the_change(settings, seeded_arena):
    settings.HTTP_CACHE_PURGE_URLS = ["127.0.0.1:6081"]  # (no scheme)
    with TestCase.captureOnCommitCallbacks(execute=True):
        arena_content_changed(arena_id=seeded_arena.pk)
    assert purge.http_cache_purge(["site"]) == ["127.0.0.1:6081"]
