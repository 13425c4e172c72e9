"""The bench's page parts: every public page over HTTP (warm, cold, 304 against /healthz),
the queries each page makes, and the moderators' queue in the admin. Run by scripts/bench.py after django.setup()."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bench_tools import (
    BIG_SLUG,
    EXPLANATION,
    HX,
    QUEUE_ITEMS,
    SERVER_ENV,
    Measured,
    Stats,
    fetch,
    gunicorn,
    markdown_table,
    measure,
    median_round,
    ms,
    rate,
    ratio,
    say,
    sequential,
    wrk,
)

# --------------------------------------------------------------------------- the bench


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    http: bool = True  # measured over HTTP (every page gets its query count)
    per_arena: bool = True  # False: the same URL for both arenas (measured once)


def arena_pages(arena) -> list[Page]:
    """Every public page and htmx fragment of ``arena`` (the models are imported by the caller)."""
    from arena.text import arena_slugify  # after django.setup(), as the caller's imports

    products = list(arena.products.order_by("position"))
    a, b = products[0], products[-1]
    story = arena.stories.order_by("position").first()
    cell = story.cells.filter(product=a).first()
    persona = story.persona.slug
    base = f"/arenas/{arena.slug}/"
    first, *_, last = [arena_slugify(c.name) for c in arena.categories.order_by("position")]
    weights = f"weights={first}:3,{last}:0"
    four = ",".join(p.slug for p in products[:4])
    return [
        Page("home", "/", per_arena=False),
        Page("arena", base),
        Page("arena, filtered (persona + text)", f"{base}?persona={persona}&q=a"),
        Page(
            "⤷ htmx leaderboard (rank by verified)",
            f"{base}?rank=verified",
            {**HX, "HX-Target": "leaderboard"},
        ),
        Page(
            "⤷ htmx matrix (persona filter)",
            f"{base}?persona={persona}",
            {**HX, "HX-Target": "matrix"},
        ),
        Page(
            "⤷ htmx matrix (verdict + text)",
            f"{base}?verdict=disputed&q=e",
            {**HX, "HX-Target": "matrix"},
            http=False,
        ),
        Page("arena, your weights", f"{base}?{weights}"),
        Page(
            "⤷ htmx leaderboard (your weights)",
            f"{base}?{weights}",
            {**HX, "HX-Target": "leaderboard"},
        ),
        Page("compare 4 products", f"{base}compare/?products={four}"),
        Page("head-to-head", f"{base}vs/{a.slug}-vs-{b.slug}/"),
        Page(
            "⤷ htmx head-to-head (pair picker)",
            f"{base}vs/{a.slug}-vs-{b.slug}/?a={b.slug}&b={products[1].slug}",
            HX,
            http=False,
        ),
        Page("product", f"{base}products/{a.slug}/"),
        Page("story", f"{base}stories/{story.pk}/"),
        Page("cell proof", f"/cells/{cell.pk}/"),
        Page("methodology", "/methodology/", per_arena=False),
        Page("404 (unknown product)", f"{base}products/no-such-product/", http=False),
        Page("flag form", f"/cells/{cell.pk}/flag/", http=False),
        Page("⤷ htmx flag form", f"/cells/{cell.pk}/flag/", HX, http=False),
        Page("recent changes", "/changes/", http=False, per_arena=False),
        Page("Atom feed", "/changes/feed/", http=False, per_arena=False),
        Page("API arenas", "/api/arenas/", http=False, per_arena=False),
        Page("API arena detail", f"/api/arenas/{arena.slug}/"),
        Page("API matrix", f"/api/arenas/{arena.slug}/matrix/"),
        Page("API compare", f"/api/arenas/{arena.slug}/compare/{a.slug}/{b.slug}/"),
        Page("API arena detail (your weights)", f"/api/arenas/{arena.slug}/?{weights}"),
        Page("API compare 4 products", f"/api/arenas/{arena.slug}/compare/?products={four}"),
        Page("export JSON (arena file)", f"{base}export.json"),
        Page("export CSV", f"{base}export.csv"),
        Page("arena markdown", f"/arenas/{arena.slug}.md"),
        Page("head-to-head markdown", f"{base}vs/{a.slug}-vs-{b.slug}.md"),
        Page("cell markdown", f"/cells/{cell.pk}.md"),
        Page("llms.txt", "/llms.txt", per_arena=False),
        Page("arena changes feed (Atom)", f"{base}changes/feed/"),
        Page("product changes feed (Atom)", f"{base}products/{a.slug}/changes/feed/"),
        Page("product badge (SVG)", f"{base}products/{a.slug}/badge.svg"),
        Page("disputes", f"{base}disputes/"),
        Page("disputes JSON", f"{base}disputes.json"),
        Page("disputes feed (Atom)", f"{base}disputes/feed/"),
        Page("sitemap.xml", "/sitemap.xml", per_arena=False),
        Page("robots.txt", "/robots.txt", http=False, per_arena=False),
    ]


def database_label() -> str:
    url = os.environ.get("DATABASE_URL", "")
    return "PostgreSQL" if url.startswith(("postgres://", "postgresql://")) else "SQLite"


def setting_text(names: Sequence[str]) -> str:
    return ", ".join(f"{name}={os.environ[name]}" for name in names if os.environ.get(name))


def run_pages(arenas, args) -> None:
    """Pages over HTTP: a warm gunicorn (PAGE_CACHE=1) and a cold one (PAGE_CACHE=0)."""
    wrk_text = f"wrk -t1 -c{args.connections} -d{args.duration:g}s"
    say("## Pages over HTTP\n")
    say(
        f"gunicorn, 1 sync worker (gunicorn.conf.py), DEBUG=0, {database_label()}, "
        f"{setting_text(['CONN_MAX_AGE', 'REDIS_URL']) or 'page cache in local memory'}; "
        f"{wrk_text} on loopback, no Accept-Encoding (one warm-up request per URL; pages slower "
        f"than {args.duration / 4:g} s: {args.duration:g} s of sequential requests). Warm: "
        "PAGE_CACHE=1; cold: PAGE_CACHE=0 (a second gunicorn); 304: wrk with If-None-Match: "
        "<the page's ETag> on the warm one. Ratios against /healthz in the same gunicorn, "
        f"measured for {args.pair_duration:g} s just before each row (the machine's load "
        "drifts): throughput (warm, 304), p50 latency (cold). The arena page cold: "
        f"{args.cold_rounds} rounds of /healthz then the page, the round of median throughput "
        "ratio. API_ANON_RATE and PAGE_MISS_RATE lifted.\n"
    )
    healthz = Page("healthz", "/healthz")
    rows: list[tuple[str, str, Page]] = [("/healthz (trivial view)", "—", healthz)]
    for arena in arenas:
        for page in arena_pages(arena):
            if page.http and (page.per_arena or arena is arenas[0]):
                rows.append((page.name, arena_size(arena) if page.per_arena else "—", page))

    def run(base: str, page: Page, extra: Mapping[str, str] | None = None) -> Measured:
        headers = {**page.headers, **(extra or {})}
        return measure(
            base, page.path, headers, duration=args.duration, connections=args.connections
        )

    def reference(base: str) -> Stats:
        return wrk(
            base, "/healthz", headers={}, duration=args.pair_duration, connections=args.connections
        )

    # per row: (reference, measured) for warm, cold and 304
    warm: list[tuple[Stats, Measured]] = []
    cold: list[tuple[Stats, Measured]] = []
    revalidated: list[Stats | None] = []
    with gunicorn({**SERVER_ENV, "PAGE_CACHE": "1"}) as base:
        for _name, _size, page in rows:
            ref = reference(base)
            warm.append((ref, run(base, page)))
            etag = warm[-1][1].first.headers.get("etag")
            revalidated.append(
                run(base, page, {"If-None-Match": etag}).stats
                if etag and page is not healthz
                else None
            )
        big_path = f"/arenas/{BIG_SLUG}/"
        gzipped = fetch(base, big_path, {"Accept-Encoding": "gzip"})
        plain = fetch(base, big_path)
    with gunicorn({**SERVER_ENV, "PAGE_CACHE": "0"}) as base:
        for _name, _size, page in rows:
            # the arena page, the figure that matters most cold: the median of several rounds
            rounds = args.cold_rounds if page.name == "arena" else 1
            cold.append(median_round([(reference(base), run(base, page)) for _ in range(rounds)]))

    table = []
    for (name, size, _page), (wref, w), (cref, c), r in zip(
        rows, warm, cold, revalidated, strict=True
    ):
        note = [f"{label} {m.first.status}" for label, m in (("warm", w), ("cold", c))]
        note = [n for n in note if not n.endswith(" 200")]
        if r is not None and r.count_not("304"):
            note.append(f"304 run: {r.status_text()}")
        if w.stats.tool != "wrk" or c.stats.tool != "wrk":
            note.append("sequential")
        table.append(
            [
                name + (f" ({'; '.join(note)})" if note else ""),
                size,
                rate(w.stats.rps),
                ratio(w.stats.rps / wref.rps),
                f"{ms(w.stats.p50_ms)} / {ms(w.stats.p99_ms)}",
                rate(c.stats.rps),
                f"{ms(c.stats.p50_ms)} / {ms(c.stats.p99_ms)}",
                ratio(c.stats.p50_ms / cref.p50_ms),
                rate(r.rps) if r else "—",
                ratio(r.rps / wref.rps) if r else "—",
                f"{len(w.first.body) / 1024:.0f}",
            ]
        )
    say(
        markdown_table(
            [
                "page",
                "arena",
                "warm req/s",
                "warm ×healthz",
                "warm p50 / p99 ms",
                "cold req/s",
                "cold p50 / p99 ms",
                "cold latency ×healthz",
                "304 req/s",
                "304 ×healthz",
                "KB",
            ],
            table,
        )
    )
    names = [(name, size) for name, size, _page in rows]
    seed_ref, seed_measured = cold[names.index(("arena", arena_size(arenas[0])))]
    big_ref, big_measured = cold[names.index(("arena", arena_size(arenas[1])))]
    seed_cold, big_cold = seed_measured.stats.p50_ms, big_measured.stats.p50_ms
    say(
        "\nThe arena page cold (PAGE_CACHE=0), throughput of /healthz over the page's: "
        + ", ".join(
            f"{arena_size(arena)} {ratio(ref.rps / m.stats.rps if m.stats.rps else None)}"
            for arena, (ref, m) in zip(
                arenas, ((seed_ref, seed_measured), (big_ref, big_measured)), strict=True
            )
        )
        + " (scripts/bench_cold.py measures it alone, in rounds)."
    )
    encoding = gzipped.headers.get("content-encoding", "identity")
    say(
        f"\n30×300 arena page: {len(gzipped.body) / 1024:.1f} KB with Accept-Encoding: gzip "
        f"(Content-Encoding: {encoding}; {len(plain.body) / 1024:.0f} KB plain); cold p50 "
        f"30×300 / 6×53 = {ratio(big_cold / seed_cold)} ({ms(big_cold)} ms / {ms(seed_cold)} ms).\n"
    )


def arena_size(arena) -> str:
    return f"{arena.products.count()}×{arena.stories.count()}"


def run_queries(arenas) -> None:
    """Queries and size of every page and fragment, rendered in this process (PAGE_CACHE=0)."""
    # Django is set up by the caller; the test client and query capture need its app registry.
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    say("## Queries per page\n")
    say(
        f"Rendered in-process through django.test.Client, {database_label()}, DEBUG=0, "
        "PAGE_CACHE=0 (every request renders); the second request of each page is counted.\n"
    )
    client = Client()
    results: dict[str, dict[str, tuple[int, int, int]]] = {}
    order: list[str] = []
    for arena in arenas:
        for page in arena_pages(arena):
            if page.name not in order:
                order.append(page.name)
            client.get(page.path, headers=dict(page.headers), secure=True)  # warm-up
            connection.queries_log.clear()  # a full log (maxlen) would hide new queries
            with CaptureQueriesContext(connection) as queries:
                response = client.get(page.path, headers=dict(page.headers), secure=True)
                # a streamed export reads as it is sent
                body = (
                    b"".join(response.streaming_content) if response.streaming else response.content
                )
            results.setdefault(page.name, {})[arena.slug] = (
                len(queries),
                response.status_code,
                len(body),
            )
    seed, big = (a.slug for a in arenas)
    rows = []
    for name in order:
        qs, st, size = results[name][seed]
        qb, sb, sizeb = results[name][big]
        status = "" if st == sb and st in (200, 301, 302) else f" ({st}/{sb})"
        rows.append([f"{name}{status}", qs, qb, f"{size / 1024:.0f}", f"{sizeb / 1024:.0f}"])
    say(
        markdown_table(
            ["page", "queries 6×53", "queries 30×300", "KB 6×53", "KB 30×300"],
            rows,
        )
    )
    say()


def pending_flags(big, count: int) -> None:
    """``count`` pending review items on ``count`` cells of ``big``, through flag_submit."""
    from flags.inputs import FlagInput
    from flags.services import flag_submit
    from stories.models import Cell

    cells = Cell.objects.filter(story__arena=big).order_by("story__position", "product__position")
    for i, cell in enumerate(cells[:count]):
        flag_submit(
            cell=cell,
            data=FlagInput(reason="other", explanation=EXPLANATION),
            client=f"bench-queue-client-{i}",
        )


def admin_session() -> str:
    """A superuser's session id (a session row in the database, as a login makes)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    user = get_user_model().objects.create_superuser(
        "bench-admin", "bench@example.com", "bench-admin-password-not-used"
    )
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    # verified by an authenticator, as after the sign-in's second step (config/admin_site.py)
    device = TOTPDevice.objects.create(user=user, name="bench", confirmed=True)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def run_queue(big, args) -> None:
    say("## Moderators' queue\n")
    pending_flags(big, QUEUE_ITEMS)
    session = admin_session()
    headers = {"Cookie": f"sessionid={session}"}
    say(
        f"gunicorn, 1 sync worker, DEBUG=0, {database_label()}; logged in as a superuser; "
        f"{QUEUE_ITEMS} pending review items on the {arena_size(big)} arena (flag_submit); "
        f"median of {args.queue_runs} sequential requests after one warm-up.\n"
    )
    rows = []
    from django.conf import settings

    admin = "/" + settings.ADMIN_URL
    with gunicorn({**SERVER_ENV, "PAGE_CACHE": "1"}) as base:
        results = {}
        for name, path in (
            ("admin index", admin),
            ("queue (ReviewItem changelist)", f"{admin}flags/reviewitem/"),
        ):
            first = fetch(base, path, headers)
            results[name] = (first, sequential(base, path, headers, args.queue_runs))
    index_ms = results["admin index"][1].p50_ms
    for name, (first, stats) in results.items():
        status = "" if first.status == 200 else f" ({first.status})"
        rows.append(
            [name + status, ms(stats.p50_ms), ms(stats.p99_ms), ratio(stats.p50_ms / index_ms)]
        )
    say(markdown_table(["page", "median ms", "max ms", "× admin index"], rows))
    say()
