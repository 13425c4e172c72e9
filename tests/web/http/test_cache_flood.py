"""The page cache cannot be flooded (web/http/pagecache.py): a page's key is its route, the parameters
it reads (canonical) and the variant it serves, so made-up parameters and header values make no
new entries; a full page asked with another spelling is redirected to its canonical address;
pages rendered for one client are limited (429); the API schema is cached; concurrent first
requests for an export render it once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client, RequestFactory
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_hypothesis
from hypothesis import strategies as st

from products.models import Product
from stories.values import Verdict
from tests.infra.services import redis_server
from web.http import pagecache, pagekeys

pytestmark = pytest.mark.django_db

ARENA = "/arenas/durable-execution-engines/"
API = "/api/arenas/durable-execution-engines/"
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(scope="module")
def redis():
    with redis_server() as server:
        yield server


@pytest.fixture
def redis_pages(redis, settings):
    """The pages cache on a real redis-server (as with REDIS_URL), empty; yields a client of it."""
    default = {"BACKEND": "web.http.cache.ResilientRedisCache", "LOCATION": redis.url}
    settings.CACHES = {"default": default, "pages": {**default, "KEY_PREFIX": "pages"}}
    raw = redis.client()
    raw.flushall()
    pagecache.recent_pages().clear()
    yield raw
    raw.flushall()


def page_keys(raw) -> list[bytes]:
    """The rendered pages Redis holds (not locks or counters)."""
    return [k for k in raw.keys("pages:*") if b":page:" in k and not k.endswith(b":lock")]


# -- made-up parameters and headers


junk_name = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-[]%.", min_size=1, max_size=12)
junk_value = st.text(max_size=20)
# names a page reads, with values the cache does not keep pages for
read_name = st.sampled_from(["persona", "q", "sort", "weights", "show", "rank", "diff", "open"])
header_value = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30)


@settings_hypothesis(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    params=st.lists(
        st.tuples(st.one_of(junk_name, read_name), junk_value).filter(
            # (a value it keeps pages for would be a real page, counted apart below)
            lambda p: not (p[0] in ("rank", "diff", "open") and p[1] in ("1", "all", "pa"))
        ),
        max_size=5,
    ),
    hx_request=st.one_of(st.none(), st.just("true"), header_value),
    hx_target=st.one_of(st.none(), header_value),
    hx_boosted=st.one_of(st.none(), st.just("true"), header_value),
    accept=st.one_of(st.none(), header_value, st.just("application/json; indent=2")),
    api=st.booleans(),
)
def test_made_up_parameters_and_headers_leave_the_cache_bounded(
    seeded_arena, redis_pages, settings, params, hx_request, hx_target, hx_boosted, accept, api
):
    settings.PAGE_MISS_RATE = ""  # (the limit is tested apart; here: how many entries)
    headers = {}
    for name, value in (
        ("HTTP_HX_REQUEST", hx_request),
        ("HTTP_HX_TARGET", hx_target),
        ("HTTP_HX_BOOSTED", hx_boosted),
        ("HTTP_ACCEPT", accept),
    ):
        if value is not None:
            headers[name] = value
    response = Client().get(API if api else ARENA, params, **headers)
    if response.status_code == 302:
        # the weights panel's fields (``w-<key>``) without script: sent on to the shareable address
        assert not api and any(name.startswith("w-") for name, _ in params), (params, headers)
        assert response["Location"].startswith(ARENA), response["Location"]
    else:
        assert response.status_code in (200, 301, 400, 404, 406), (params, headers)
    # The arena page is one full page and four htmx variants (the leaderboard, the matrix, a
    # category's rows, any other target); the API's detail is JSON, plain or indented (at most 9
    # indents): whatever the flood sent.
    assert len(page_keys(redis_pages)) <= 5 + 9


def test_hundreds_of_made_up_addresses_make_no_new_entries(seeded_arena, redis_pages, settings):
    settings.PAGE_MISS_RATE = ""
    client = Client()
    assert client.get(ARENA).status_code == 200
    assert client.get(ARENA, **HX, HTTP_HX_TARGET="leaderboard").status_code == 200
    assert client.get(API).status_code == 200
    before = len(page_keys(redis_pages))
    used_before = redis_pages.info("memory")["used_memory"]
    for i in range(300):
        junk = f"utm_{i}=x{i}&ref={i}"
        assert client.get(f"{ARENA}?{junk}").status_code == 301
        hx = {**HX, "HTTP_HX_TARGET": f"made-up-{i}"} if i % 2 else {**HX, "HTTP_HX_REQUEST": "yes"}
        assert client.get(f"{ARENA}?{junk}", **hx).status_code == 200
        assert (
            client.get(f"{API}?{junk}", HTTP_ACCEPT=f"application/json, text/x-{i}").status_code
            == 200
        )
    # the "other target" and the fragment-less variant of the arena page, nothing else
    assert len(page_keys(redis_pages)) <= before + 2
    assert redis_pages.info("memory")["used_memory"] < used_before + 2_000_000


# -- one address per page


def test_made_up_parameters_are_redirected_to_the_canonical_address(client, seeded_arena):
    def location(url: str) -> str:
        response = client.get(url)
        assert response.status_code == 301, url
        assert response["Cache-Control"].startswith("public")
        return response["Location"]

    assert location(f"{ARENA}?utm_source=feed") == ARENA
    # the parameters the page reads kept, in their canonical order and spelling
    assert location(f"{ARENA}?q=retry&fbclid=1&persona=backend-developer") == (
        f"{ARENA}?persona=backend-developer&q=retry"
    )
    assert location(f"{ARENA}?x=&verdict=full&verdict=disputed") == f"{ARENA}?verdict=disputed"
    assert location(f"{ARENA}?Weights=a&weights=privacy-posture%3A3") == (
        f"{ARENA}?weights=privacy-posture:3"
    )
    assert location("/methodology/?x=1") == "/methodology/"
    assert location("/changes/?page=2&sort=x") == "/changes/?page=2"
    canonical = client.get(f"{ARENA}?persona=backend-developer&q=retry")
    assert canonical.status_code == 200 and b"<html" in canonical.content


def test_reordered_and_respelled_parameters_are_answered_with_the_canonical_page(
    client, seeded_arena
):
    canonical = client.get(f"{ARENA}?verdict=disputed&rank=verified")
    for other in (
        f"{ARENA}?rank=verified&verdict=disputed",
        f"{ARENA}?verdict=full&rank=verified&verdict=disputed",
        f"{ARENA}?%76erdict=disputed&rank=verified",
        # the no-JavaScript filter form sends its empty fields too
        f"{ARENA}?persona=&category=&verdict=disputed&q=&sort=&rank=verified&show=",
    ):
        response = client.get(other)
        assert response.status_code == 200, other
        assert response["ETag"] == canonical["ETag"] and response.content == canonical.content


def test_htmx_and_the_api_are_answered_from_the_canonical_page(client, seeded_arena):
    canonical = client.get(f"{ARENA}?verdict=disputed", **HX, HTTP_HX_TARGET="matrix")
    junk = client.get(f"{ARENA}?zz=1&verdict=disputed", **HX, HTTP_HX_TARGET="matrix")
    assert junk.status_code == 200 and junk["ETag"] == canonical["ETag"]
    assert junk.content == canonical.content
    # any other target is the same fragment (here: the leaderboard, no filter being active)
    one = client.get(ARENA, **HX, HTTP_HX_TARGET="made-up")
    other = client.get(ARENA, **HX, HTTP_HX_TARGET="another")
    assert one["ETag"] == other["ETag"] and b"<html" not in one.content
    api = client.get(API)
    api_junk = client.get(f"{API}?callback=x&format=json", HTTP_ACCEPT="application/json; q=0.9")
    assert api_junk.status_code == 200 and api_junk.json() == api.json()
    # what the API refuses, it still refuses
    assert client.get(API, HTTP_ACCEPT="text/csv").status_code == 406
    assert client.get(f"{API}?weights=nope:9").status_code == 400
    assert client.get(f"{API}?format=xml").status_code == 404


def test_a_value_the_page_refuses_keeps_its_answer(client, seeded_arena):
    a, b = Product.objects.filter(arena=seeded_arena).order_by("position")[:2]
    assert client.get(f"{ARENA}compare/?products=nope,{a.slug}").status_code == 400
    assert client.get(f"{ARENA}vs/{a.slug}-vs-{b.slug}/?a=%3Cx%3E&b={b.slug}").status_code == 400
    assert client.get(f"{ARENA}?verdict=made-up").status_code == 200


def test_pages_asked_with_values_from_no_short_list_are_served_but_not_kept(client, seeded_arena):
    def stored(url: str):
        request = RequestFactory().get(url)
        version = pagekeys.content_version("arena", {"arena": seeded_arena.slug})
        return pagecache.stored(pagekeys.PageIdentity.of(request, version).key)

    searched = client.get(f"{ARENA}?q=retry")
    assert searched.status_code == 200
    assert client.get(f"{ARENA}?q=retry", HTTP_IF_NONE_MATCH=searched["ETag"]).status_code == 304
    assert stored(f"{ARENA}?q=retry") is None
    filtered = client.get(f"{ARENA}?verdict=full")
    assert stored(f"{ARENA}?verdict=full").body == filtered.content


def test_every_spelling_of_stale_on_is_one_page(client, seeded_arena):
    pages = {client.get(f"{ARENA}?stale={v}")["ETag"] for v in ("1", "on", "true", "YES")}
    assert len(pages) == 1


# -- misses per client


def test_too_many_misses_from_one_client_are_a_429_and_hits_still_served(seeded_arena, settings):
    # an hour's window: a minute's could turn over between the misses on a busy machine
    settings.PAGE_MISS_RATE = "3/hour"
    client = Client()
    verdicts = list(Verdict.values)
    for verdict in verdicts[:3]:  # three pages rendered for this client
        assert client.get(f"{ARENA}?verdict={verdict}").status_code == 200
    refused = client.get(f"{ARENA}?verdict={verdicts[3]}")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 3601
    assert "try again" in refused.content.decode()
    assert refused["Cache-Control"] == "no-store"
    # pages already rendered are served from the cache: hits do not count
    assert client.get(f"{ARENA}?verdict={verdicts[0]}").status_code == 200
    # another client has its own count
    other = Client(REMOTE_ADDR="192.0.2.7")
    assert other.get(f"{ARENA}?verdict={verdicts[3]}").status_code == 200


def test_a_search_counts_as_a_miss_each_time(seeded_arena, settings):
    settings.PAGE_MISS_RATE = "2/hour"
    client = Client()
    assert client.get(f"{ARENA}?q=a").status_code == 200
    assert client.get(f"{ARENA}?q=a").status_code == 200  # rendered again: not kept
    assert client.get(f"{ARENA}?q=a").status_code == 429


# -- the API schema


def test_the_api_schema_is_served_from_the_cache(client, db):
    first = client.get("/api/schema/")
    assert first.status_code == 200
    identity = pagekeys.PageIdentity.of(
        RequestFactory().get("/api/schema/"), pagekeys.content_version("static", {}), dated=False
    )
    stored = pagecache.stored(identity.key)
    assert stored is not None and stored.body == first.content
    again = client.get("/api/schema/")
    assert again.content == first.content and again["ETag"] == first["ETag"] == identity.etag
    json_schema = client.get("/api/schema/?format=json")
    assert json_schema.status_code == 200 and json_schema["ETag"] != first["ETag"]


# -- exports: one render for concurrent first requests


def test_concurrent_first_requests_for_an_export_render_it_once(seeded_arena):
    threads_n = 6
    barrier = threading.Barrier(threads_n)
    bodies: list[bytes] = []
    queries: list[int] = []
    lock = threading.Lock()

    def fetch():
        count = 0

        def counted(execute, sql, params, many, context):
            nonlocal count
            count += 1
            return execute(sql, params, many, context)

        try:
            with connection.execute_wrapper(counted):
                barrier.wait()
                response = Client().get(f"{ARENA}export.json")
                data = (
                    b"".join(response.streaming_content) if response.streaming else response.content
                )
                response.close()
            with lock:
                bodies.append(data)
                queries.append(count)
        finally:
            connection.close()

    threads = [threading.Thread(target=fetch) for _ in range(threads_n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(bodies) == threads_n and len(set(bodies)) == 1 and bodies[0].startswith(b"{")
    # every request reads the arena's content version; one of them, and only one, renders
    rendered = [n for n in queries if n > 1]
    assert len(rendered) == 1, queries


# -- local memory


def test_a_process_keeps_pages_to_its_byte_budget():
    recent = pagecache.LRU(max_bytes=3000)
    for i in range(10):
        recent.put(f"k{i}", f"page {i}", 900)
    assert recent.size <= 3000 and len(recent.entries) == 3
    assert recent.get("k9") is not None and recent.get("k0") is None
    recent.get("k7")  # used: k8 is now the least recently used
    recent.put("k10", "page", 900)
    assert recent.get("k8") is None and recent.get("k7") is not None
    recent.put("too-big", "page", 3001)  # larger than the budget: not kept
    assert recent.get("too-big") is None
    recent.clear()
    assert recent.size == 0 and recent.get("k9") is None
