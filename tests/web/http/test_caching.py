"""Public pages are cacheable and revalidatable (web/http/pagecache.py): an ETag from the arena's
content version, ``Cache-Control`` for browsers and shared caches, 304 on revalidation, ``HEAD``,
no cookie; the server keeps rendered pages under that version and any change shows at once."""

from __future__ import annotations

import gzip
import re
import threading

import pytest
from django.core.cache import caches
from django.db import connection
from django.db.models import Exists, F, OuterRef
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_hypothesis
from hypothesis import strategies as st

from arena.models import Arena, CacheEpoch, Category, Persona
from arena.recompute import arena_content_changed, arena_recompute_scores
from arena.services import structure_save
from core.conflicts import retire_set
from products.models import Product
from products.services import product_update
from stories.models import Cell, Story
from stories.services import cell_correct, cell_edit, story_update
from stories.values import CellValue, Proof, Verdict
from web.http import pagecache, pagekeys

pytestmark = [pytest.mark.django_db, pytest.mark.long]

ARENA = "/arenas/durable-execution-engines/"
HX = {"HTTP_HX_REQUEST": "true"}


def body(response) -> bytes:
    """A response's body, streamed (an export) or not."""
    return b"".join(response.streaming_content) if response.streaming else response.content


def public_urls(arena: Arena) -> list[tuple[str, dict]]:
    a, b = Product.objects.filter(arena=arena).order_by("position")[:2]
    story = Story.objects.filter(arena=arena).order_by("position").first()
    cell = Cell.objects.filter(story=story, product=a).get()
    base = arena.get_absolute_url()
    return [
        ("/", {}),
        ("/methodology/", {}),
        (base, {}),
        (f"{base}?persona=backend-developer&q=retry", {}),
        (f"{base}?verdict=disputed", {**HX, "HTTP_HX_TARGET": "matrix"}),
        (f"{base}?rank=verified", {**HX, "HTTP_HX_TARGET": "leaderboard"}),
        (f"{base}vs/{a.slug}-vs-{b.slug}/", {}),
        (f"{base}products/{a.slug}/", {}),
        (f"{base}stories/{story.pk}/", {}),
        (f"/cells/{cell.pk}/", {}),
        (f"{base}disputes/", {}),
        (f"{base}disputes/?product={a.slug}&state=open", {}),
        (f"{base}disputes/?state=decided", {**HX}),
        (f"{base}disputes.json", {}),
        (f"{base}disputes/feed/", {}),
        ("/changes/", {}),
        ("/changes/feed/", {}),
        ("/api/arenas/", {}),
        (f"/api/arenas/{arena.slug}/", {}),
        (f"/api/arenas/{arena.slug}/matrix/", {}),
        (f"/api/arenas/{arena.slug}/compare/{a.slug}/{b.slug}/", {}),
        (f"{base}compare/?products={a.slug},{b.slug}", {}),
        (f"{base}must-have/?must={story.pk}&need=self-hosted,open-source", {}),
        (f"/api/arenas/{arena.slug}/compare/?products={b.slug},{a.slug}", {}),
        ("/api/schema/", {}),
        ("/api/docs/", {}),
        (f"{base}changes/feed/", {}),
        (f"{base}products/{a.slug}/changes/feed/", {}),
        (f"{base}products/{a.slug}/badge.svg", {}),
        (f"{base}export.json", {}),
        (f"{base}export.csv", {}),
        (f"/arenas/{arena.slug}.md", {}),
        ("/llms.txt", {}),
        ("/sitemap.xml", {}),
        ("/sitemap-pages.xml", {}),
        (f"{base}sitemap.xml", {}),
        ("/robots.txt", {}),
    ]


@pytest.fixture
def urls(seeded_arena):
    return public_urls(seeded_arena)


def test_anonymous_pages_are_public_validated_and_set_no_cookie(client, urls):
    for url, headers in urls:
        response = client.get(url, **headers)
        assert response.status_code == 200, url
        control = response["Cache-Control"]
        for part in ("public", "max-age=60", "s-maxage=300", "stale-while-revalidate=60"):
            assert part in control, (url, control)
        assert response["ETag"].startswith('W/"'), url
        assert not response.cookies, (url, response.cookies)
        assert "cookie" not in response.get("Vary", "").lower(), (url, response["Vary"])


def test_revalidation_answers_304_with_one_query(client, urls, django_assert_max_num_queries):
    for url, headers in urls:
        etag = client.get(url, **headers)["ETag"]
        with django_assert_max_num_queries(1):  # the content version, nothing else
            response = client.get(url, HTTP_IF_NONE_MATCH=etag, **headers)
        assert response.status_code == 304, url
        assert response.content == b""
        assert response["ETag"] == etag
        assert "public" in response["Cache-Control"]


def test_head_answers_everywhere_with_the_get_headers_and_no_body(client, urls):
    for url, headers in urls:
        got = client.get(url, **headers)
        whole = body(got)  # (a stream holds its page's render lock until it has been sent)
        head = client.head(url, **headers)
        assert head.status_code == 200, url
        assert body(head) == b""
        assert head["ETag"] == got["ETag"]
        assert head["Content-Type"] == got["Content-Type"]
        assert int(head["Content-Length"]) == len(whole), url


def test_a_cached_page_costs_no_query_while_its_version_is_remembered(
    client, seeded_arena, django_assert_num_queries, monkeypatch
):
    monkeypatch.setattr(pagekeys, "VERSION_SECONDS", 3600.0)
    first = client.get(ARENA)
    with django_assert_num_queries(0):
        again = client.get(ARENA)
    assert again.content == first.content
    assert again["ETag"] == first["ETag"]
    monkeypatch.setattr(pagekeys, "VERSION_SECONDS", 0.0)  # past the time a version is reused
    with django_assert_num_queries(1):
        assert client.get(ARENA)["ETag"] == first["ETag"]


def test_a_version_bumped_elsewhere_is_read_once_the_remembered_one_expires(
    client, seeded_arena, monkeypatch
):
    monkeypatch.setattr(pagekeys, "VERSION_SECONDS", 3600.0)
    first = client.get(ARENA)["ETag"]
    # as another process would: no signal reaches this one
    Arena.objects.filter(pk=seeded_arena.pk).update(content_version=F("content_version") + 1)
    assert client.get(ARENA)["ETag"] == first
    monkeypatch.setattr(pagekeys, "VERSION_SECONDS", 0.0)
    assert client.get(ARENA)["ETag"] != first


@pytest.mark.parametrize("change", ["content", "new arena", "deleted arena", "restore"])
def test_a_change_made_in_this_process_is_served_at_once(client, seeded_arena, monkeypatch, change):
    monkeypatch.setattr(pagekeys, "VERSION_SECONDS", 3600.0)
    url = "/" if change in ("new arena", "deleted arena") else ARENA
    other = Arena.objects.create(slug="another", name="Another arena")
    first = client.get(url)["ETag"]
    if change == "content":
        arena_content_changed(arena_id=seeded_arena.pk)
    elif change == "new arena":
        Arena.objects.create(slug="yet-another", name="Yet another arena")
    elif change == "deleted arena":
        other.delete()
    else:
        CacheEpoch.objects.update_or_create(pk=1, defaults={"value": "restored"})
    assert client.get(url)["ETag"] != first


def test_htmx_fragments_and_full_pages_are_cached_apart(client, seeded_arena):
    full = client.get(f"{ARENA}?verdict=disputed")
    fragment = client.get(f"{ARENA}?verdict=disputed", **HX, HTTP_HX_TARGET="matrix")
    again_full = client.get(f"{ARENA}?verdict=disputed")
    assert b"<html" in full.content and b"<html" not in fragment.content
    assert again_full.content == full.content
    assert fragment["ETag"] != full["ETag"]
    assert "HX-Request" in fragment["Vary"] and "HX-Target" in fragment["Vary"]


def test_gzip_is_served_to_who_accepts_it(client, seeded_arena):
    plain = client.get(ARENA)
    zipped = client.get(ARENA, HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert zipped["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped["Vary"]
    assert gzip.decompress(zipped.content) == plain.content
    assert len(zipped.content) < len(plain.content) / 4


def test_the_flag_form_brings_its_own_csrf_token_and_is_private(client, seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena).first()
    page = client.get(f"/cells/{cell.pk}/")
    assert b"csrfmiddlewaretoken" not in page.content
    form = client.get(f"/cells/{cell.pk}/flag/")
    assert "csrftoken" in form.cookies
    assert b"csrfmiddlewaretoken" in form.content
    assert form["Cache-Control"] == "private, no-cache"


def test_errors_are_not_stored_by_shared_caches(client, seeded_arena):
    missing = client.get(f"{ARENA}products/no-such-product/")
    assert missing.status_code == 404
    picker = client.get(f"{ARENA}vs/inngest-vs-hatchet/?a=%3Cx%3E&b=temporal")
    assert picker.status_code == 400
    assert picker["Cache-Control"] == "no-store"


def _first_cell(arena: Arena) -> Cell:
    return Cell.objects.filter(story__arena=arena, verdict=Verdict.FULL).order_by("pk").first()


# Each change: the page that shows it, a text that appears there after it (None: the version
# moves, the text may show elsewhere), and the write, through its service.
def _change_verdict(arena):
    cell = _first_cell(arena)
    value = CellValue(Verdict.PARTIAL, Proof.CLAIMED, 3)
    return f"/cells/{cell.pk}/", "partial", lambda: cell_correct(cell=cell, value=value, note="x")


def _change_rationale(arena):
    cell = Cell.objects.filter(story__arena=arena).exclude(rationale="").order_by("pk").first()
    text = "A rationale written after the page was cached."
    return (
        f"/cells/{cell.pk}/",
        text,
        lambda: cell_edit(cell=cell, changes={"rationale": text}, base_version=cell.version),
    )


def _change_story_text(arena):
    story = Story.objects.filter(arena=arena).order_by("position").first()
    text = "A story text edited after caching"
    return arena.get_absolute_url(), text, lambda: story_update(story=story, changes={"text": text})


def _change_product_tier(arena):
    product = Product.objects.filter(arena=arena).order_by("position").first()
    url = f"{arena.get_absolute_url()}products/{product.slug}/"
    return (
        url,
        "Edited tier",
        lambda: product_update(product=product, changes={"tier": "Edited tier"}),
    )


def _change_category_blurb(arena):
    category = Category.objects.filter(arena=arena).order_by("position").first()
    category.blurb = "A blurb edited after caching"
    return (
        arena.get_absolute_url(),
        category.blurb,
        lambda: structure_save(category, changed=["blurb"]),
    )


def _change_persona_label(arena):
    persona = Persona.objects.get(slug="backend-developer")
    persona.label = "Backend people (edited)"
    return arena.get_absolute_url(), None, lambda: structure_save(persona, changed=["label"])


def _change_arena_description(arena):
    arena.description = "A description edited after caching."
    return (
        arena.get_absolute_url(),
        arena.description,
        lambda: structure_save(arena, changed=["description"]),
    )


def _retire_story(arena):
    story = Story.objects.filter(arena=arena).order_by("position").first()
    url = f"{arena.get_absolute_url()}stories/{story.pk}/"
    return url, None, lambda: retire_set(story, retired=True)


def _recompute(arena):
    return arena.get_absolute_url(), None, lambda: arena_recompute_scores(arena_id=arena.pk)


@pytest.mark.parametrize(
    "change",
    [
        _change_verdict,
        _change_rationale,
        _change_story_text,
        _change_product_tier,
        _change_category_blurb,
        _change_persona_label,
        _change_arena_description,
        _retire_story,
        _recompute,
    ],
    ids=lambda f: f.__name__.strip("_"),
)
def test_every_change_shows_at_once_and_moves_the_etag(client, seeded_arena, change):
    urls = [url for url, headers in public_urls(seeded_arena) if not headers]
    url, text, write = change(seeded_arena)
    urls.append(url)
    before = {u: client.get(u) for u in urls}  # all cached now
    if text is not None:
        assert text not in before[url].content.decode()
    write()
    after = client.get(url, HTTP_IF_NONE_MATCH=before[url]["ETag"])
    assert after.status_code in (200, 404), url  # a retired story's page is gone
    assert after.get("ETag") != before[url]["ETag"]
    if text is not None:
        assert text in after.content.decode()
    # every page of the arena and the site moved on with it: none answers 304 to its old ETag
    for other in urls:
        # (not arena content)
        static = (
            "/methodology/",
            "/api/schema/",
            "/api/docs/",
            "/robots.txt",
            "/sitemap-pages.xml",
        )
        if other not in static:
            again = client.get(other, HTTP_IF_NONE_MATCH=before[other]["ETag"])
            assert again.status_code != 304, other


def test_the_kept_matrix_is_read_once_per_version_and_shows_a_change_at_once(
    client, seeded_arena, settings
):
    """With the cache epoch a migrated database has, the matrix is kept per content version: a
    render without the page cache reads it once; a story's new text shows at once; a search's
    matrix (free text) is read each time, never kept."""
    settings.PAGE_CACHE = False
    CacheEpoch.objects.update_or_create(pk=1, defaults={"value": "kept"})

    def queries(url: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    first, again = queries(ARENA), queries(ARENA)
    assert again < first
    search = f"{ARENA}?q=retry"
    assert queries(search) == queries(search) > again
    _, text, write = _change_story_text(seeded_arena)
    write()
    assert text in client.get(ARENA).content.decode()


def test_the_kept_matrix_region_shows_a_corrected_verdict_at_once(client, seeded_arena, settings):
    """The matrix's count and cells are kept per content version as the matrix is: a corrected
    verdict shows at once in its cell and in the count of a verdict filter, on the page and in
    its htmx swap alike."""
    settings.PAGE_CACHE = False
    CacheEpoch.objects.update_or_create(pk=1, defaults={"value": "kept"})
    url = f"{ARENA}?verdict=partial"
    swap = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "matrix"}
    with_partial = Cell.objects.filter(story=OuterRef("story"), verdict=Verdict.PARTIAL)
    cell = (
        Cell.objects.filter(story__arena=seeded_arena, verdict=Verdict.FULL)
        .exclude(Exists(with_partial))
        .order_by("pk")
        .first()
    )

    def seen(page: str, **headers: str) -> tuple[int, str | None]:
        body = client.get(page, **headers).content.decode()
        shown = int(re.search(r"(\d+)/\d+ stories shown", body)[1])
        verdict = re.search(rf'<a href="/cells/{cell.pk}/"><i aria-hidden="true">.</i> (\w+)', body)
        return shown, verdict and verdict[1]

    before = seen(url)
    assert seen(url) == seen(url, **swap) == before  # drawn once, served alike
    assert seen(ARENA)[1] == "full"
    cell_correct(cell=cell, value=CellValue(Verdict.PARTIAL, Proof.CLAIMED, 3), note="x")
    assert seen(url) == seen(url, **swap) == (before[0] + 1, "partial")
    assert seen(ARENA)[1] == "partial"


def test_a_flag_shows_at_once_on_the_cell_and_its_arenas_disputes(client, seeded_arena):
    """A pending dispute is public (its date and reason): a flag moves the arena's version."""
    cell = _first_cell(seeded_arena)
    urls = [f"/cells/{cell.pk}/", f"{seeded_arena.get_absolute_url()}disputes/"]
    before = {url: client.get(url) for url in urls}
    posted = client.post(
        "/api/flags/",
        {"cell": cell.pk, "reason": "other", "explanation": "This verdict looks wrong to me."},
        content_type="application/json",
    )
    assert posted.status_code == 201, posted.content
    for url in urls:
        after = client.get(url, HTTP_IF_NONE_MATCH=before[url]["ETag"])
        assert after.status_code == 200 and "Under review" in after.content.decode(), url
        assert "This verdict looks wrong to me." not in after.content.decode()


def test_a_miss_waits_for_the_render_another_process_started(client, seeded_arena, monkeypatch):
    """Stampede protection: while another renderer holds the page's lock, a request waits for its
    entry instead of rendering the same page again."""
    request = RequestFactory().get(ARENA)
    version = f"{seeded_arena.pk}-{Arena.objects.get(pk=seeded_arena.pk).content_version}"
    page_id = pagekeys.PageIdentity.of(request, version)
    cache = caches["pages"]
    assert cache.add(f"{page_id.key}:lock", 1, timeout=10)
    recent = pagecache.recent_pages()
    stored = pagecache.Page(
        status=200,
        headers=(("Content-Type", "text/html; charset=utf-8"),),
        body=b"rendered by the lock holder",
        gzipped=None,
    )

    missed = threading.Event()
    recent_get = type(recent).get

    def get(self, key):  # this process's lookups, told to the lock holder
        found = recent_get(self, key)
        if key == page_id.key and found is None:
            missed.set()
        return found

    monkeypatch.setattr(type(recent), "get", get)

    def holder():
        # the lock is held from the start: once the request has missed, it can only wait
        assert missed.wait(timeout=30), "the request never looked for the page"
        pagecache.store(page_id.key, stored)
        cache.delete(f"{page_id.key}:lock")

    thread = threading.Thread(target=holder)
    thread.start()
    response = client.get(ARENA)
    thread.join()
    assert missed.is_set() and response.content == b"rendered by the lock holder"
    assert response["ETag"] == page_id.etag


def test_without_the_page_cache_pages_still_revalidate(client, seeded_arena, settings):
    settings.PAGE_CACHE = False
    first = client.get(ARENA)
    assert client.get(ARENA, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert not pagecache.stored(pagekeys.PageIdentity.of(RequestFactory().get(ARENA), "0").key)
    assert "public" in first["Cache-Control"]


def test_a_new_release_changes_every_etag(client, seeded_arena, settings):
    before = client.get(ARENA)["ETag"]
    settings.RELEASE = "next-release"
    pagekeys.release.cache_clear()  # (read once per process: a deploy starts new ones)
    try:
        response = client.get(ARENA, HTTP_IF_NONE_MATCH=before)
    finally:
        pagekeys.release.cache_clear()
    assert response.status_code == 200
    assert "next-release" in response["ETag"]


def test_odd_cell_ids_are_a_404_not_a_database_error(client, db):
    assert client.get(f"/cells/{2**70}/").status_code == 404
    assert client.head("/cells/0/").status_code == 404


def test_recent_pages_keep_to_their_byte_budget_dropping_the_least_recently_used():
    recent = pagecache.LRU(max_bytes=250)
    recent.put("a", "page a", 100)
    recent.put("b", "page b", 100)
    assert recent.get("a") is not None  # a is now the most recently used
    recent.put("c", "page c", 100)  # over budget: b goes
    assert recent.get("b") is None
    assert recent.get("a") is not None and recent.get("c") is not None
    recent.put("huge", "page", 300)  # larger than the whole budget: not kept
    assert recent.get("huge") is None and recent.size == 200


def test_another_arena_under_a_freed_slug_does_not_meet_the_old_ones_pages(client, seeded_arena):
    first = client.get(ARENA)
    old = Arena.objects.get(pk=seeded_arena.pk)
    old.slug = "renamed"
    structure_save(old, changed=["slug"])
    # a new arena takes the slug, its version counter where the old one's was
    other = Arena.objects.create(
        slug=seeded_arena.slug, name="Another arena", content_version=old.content_version - 1
    )
    structure_save(other, changed=[])  # (one bump: now at the old arena's version)
    page = client.get(ARENA, HTTP_IF_NONE_MATCH=first["ETag"])
    assert page.status_code == 200 and "Another arena" in page.content.decode()


def test_a_process_serves_its_recent_pages_without_the_shared_cache(client, seeded_arena):
    first = client.get(ARENA)
    caches["pages"].clear()  # Redis evicted it
    again = client.get(ARENA)
    assert again.content == first.content and again["ETag"] == first["ETag"]


def test_pages_for_another_host_are_kept_apart(client, seeded_arena, settings):
    settings.ALLOWED_HOSTS = ["testserver", "mirror.example.org"]
    here = client.get("/changes/feed/")
    there = client.get("/changes/feed/", HTTP_HOST="mirror.example.org")
    assert b"mirror.example.org" in there.content and b"mirror.example.org" not in here.content
    assert client.get("/changes/feed/", HTTP_HOST="evil.example").status_code == 400


# (the arena is only read: one instance serves every example)
@settings_hypothesis(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    etag=st.text(max_size=80),
    encoding=st.text(max_size=40),
    target=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30),
    query=st.text(max_size=40),
)
def test_odd_validators_and_headers_never_break_a_page(seeded_arena, etag, encoding, target, query):
    client = Client()
    response = client.get(
        ARENA,
        {"q": query},
        HTTP_IF_NONE_MATCH=etag.encode("latin-1", "replace").decode("latin-1"),
        HTTP_ACCEPT_ENCODING=encoding.encode("latin-1", "replace").decode("latin-1"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET=target,
    )
    assert response.status_code in (200, 304)
