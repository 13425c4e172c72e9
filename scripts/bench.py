#!/usr/bin/env python
"""Query count and server time of every public page and htmx partial, for the seed arena (6 products
× 53 stories) and a generated one (30 × 300).

Standalone: uses a temporary SQLite database (migrated, seeded, generated here), renders through
``django.test.Client`` and prints a markdown table. Run from the project root:

    .venv/bin/python scripts/bench.py [--runs 15]
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import statistics
import tempfile
import time
import warnings
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per page (median shown)")
    args = parser.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp.name}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    os.environ.setdefault("LOG_LEVEL", "ERROR")

    # The settings above must be in the environment before Django loads, and models can only be
    # imported once django.setup() has filled the app registry: these imports cannot move up.
    import django

    django.setup()

    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from arena.generate import arena_generate
    from arena.models import Arena
    from products.models import Product
    from stories.models import Cell, Story

    logging.disable(logging.WARNING)  # the 404 row logs "Not Found" on every run
    warnings.filterwarnings("ignore", message="No directory at")  # whitenoise, no collectstatic
    setup_test_environment()  # allows the test client's host; DEBUG stays as configured
    settings.DEBUG = False
    call_command("migrate", verbosity=0)
    seeds = sorted(str(p) for p in Path(settings.BUNDLED_ARENA_DIR).glob("*.txt"))
    call_command("import_arena_pages", *seeds, stdout=io.StringIO(), stderr=io.StringIO())
    arena_generate(slug="big", products=30, stories=300)

    def pages_for(arena: Arena) -> list[tuple[str, str, dict]]:
        products = list(Product.objects.filter(arena=arena).order_by("position"))
        a, b = products[0], products[-1]
        story = Story.objects.filter(arena=arena).order_by("position").first()
        cell = Cell.objects.filter(story=story, product=a).first()
        persona = story.persona.slug
        base = f"/arenas/{arena.slug}/"
        hx = {"HTTP_HX_REQUEST": "true"}
        return [
            ("home", "/", {}),
            ("arena", base, {}),
            ("arena, filtered (persona + text)", f"{base}?persona={persona}&q=a", {}),
            (
                "⤷ htmx leaderboard (rank by verified)",
                f"{base}?rank=verified",
                {**hx, "HTTP_HX_TARGET": "leaderboard"},
            ),
            (
                "⤷ htmx matrix (persona filter)",
                f"{base}?persona={persona}",
                {**hx, "HTTP_HX_TARGET": "matrix"},
            ),
            (
                "⤷ htmx matrix (verdict + text)",
                f"{base}?verdict=disputed&q=e",
                {**hx, "HTTP_HX_TARGET": "matrix"},
            ),
            ("head-to-head", f"{base}vs/{a.slug}-vs-{b.slug}/", {}),
            (
                "⤷ htmx head-to-head (pair picker)",
                f"{base}vs/{a.slug}-vs-{b.slug}/?a={b.slug}&b={products[1].slug}",
                hx,
            ),
            ("product", f"{base}products/{a.slug}/", {}),
            ("story", f"{base}stories/{story.pk}/", {}),
            ("cell proof", f"/cells/{cell.pk}/", {}),
            ("methodology", "/methodology/", {}),
            ("404 (unknown product)", f"{base}products/no-such-product/", {}),
            ("flag form", f"/cells/{cell.pk}/flag/", {}),
            ("⤷ htmx flag form", f"/cells/{cell.pk}/flag/", hx),
            ("recent changes", "/changes/", {}),
            ("Atom feed", "/changes/feed/", {}),
            ("API arenas", "/api/arenas/", {}),
            ("API arena detail", f"/api/arenas/{arena.slug}/", {}),
            ("API matrix", f"/api/arenas/{arena.slug}/matrix/", {}),
            ("API compare", f"/api/arenas/{arena.slug}/compare/{a.slug}/{b.slug}/", {}),
        ]

    client = Client()
    arenas = [Arena.objects.get(slug="durable-execution-engines"), Arena.objects.get(slug="big")]
    results: dict[str, dict[str, tuple[int, float, int, int]]] = {}
    order: list[str] = []
    for arena in arenas:
        for name, url, headers in pages_for(arena):
            if name not in order:
                order.append(name)
            client.get(url, **headers)  # warm up (template cache, connection)
            connection.queries_log.clear()  # a full log (maxlen) would hide new queries
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url, **headers)
            count = len(queries)  # now: the next request resets the connection's query log
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                client.get(url, **headers)
                times.append((time.perf_counter() - start) * 1000)
            results.setdefault(name, {})[arena.slug] = (
                count,
                statistics.median(times),
                response.status_code,
                len(response.content),
            )

    seed, big = (a.slug for a in arenas)
    print(f"Median of {args.runs} runs, django.test.Client, SQLite, DEBUG=False.\n")
    print("| page | queries 6×53 | queries 30×300 | ms 6×53 | ms 30×300 | KB 6×53 | KB 30×300 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in order:
        qs, ms, st, size = results[name][seed]
        qb, mb, sb, sizeb = results[name][big]
        status = "" if st == sb and st in (200, 301, 302) else f" ({st}/{sb})"
        print(
            f"| {name}{status} | {qs} | {qb} | {ms:.1f} | {mb:.1f} | {size / 1024:.0f} |"
            f" {sizeb / 1024:.0f} |"
        )
    tmp.cleanup()


if __name__ == "__main__":
    main()
