#!/usr/bin/env python
"""Which way to write the matrix: the same arena-page matrix table (300 stories × 30 products,
9,000 cells, every category unfolded) built three ways from the same data, in memory (no
database): the f-strings of ``web/pages/matrix.py`` (what the site runs), a Jinja2 template and a
Django template. It checks that the three write the same HTML (whitespace between tags aside) and
prints a markdown table: the median of N runs of each, and its ratio to the f-strings.

Jinja2 is a development dependency only (the site does not use it). Run from the project root:

    .venv/bin/python scripts/bench_builders.py                 # 15 runs of each
    .venv/bin/python scripts/bench_builders.py --runs 30 --stories 300 --products 30

(where Jinja2 is installed outside the project: ``PYTHONPATH=/tmp/jinja2-lib`` before the command).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

import jinja2  # noqa: E402  (after the settings: the builders below read them)
from django import template  # noqa: E402
from django.utils.safestring import SafeString  # noqa: E402

from arena.selectors.cells import CellLine  # noqa: E402
from arena.selectors.matrix import Matrix, MatrixFilters, MatrixRow  # noqa: E402
from arena.selectors.story_lines import (  # noqa: E402
    CategoryLine,
    PersonaLine,
    StoryLine,
    SubGroupLine,
)
from products.models import Product  # noqa: E402
from stories import freshness  # noqa: E402
from stories.values import Proof, Verdict  # noqa: E402
from web.pages import links  # noqa: E402
from web.pages.badges import matrix_badge, verdict_class  # noqa: E402
from web.pages.freshness import freshness_now, stale_title  # noqa: E402
from web.pages.matrix import matrix_table  # noqa: E402

ARENA = "big"
CATEGORIES = ("Reliability & recovery", "Developer experience", "Performance", "Openness")
PERSONAS = ("agent-builder", "backend-developer", "platform-engineer")
CAPTION = (
    '<table class="matrix"><caption class="visually-hidden">Verdict of each product on each'
    " user story; each cell links to its proof.</caption>"
)

# The same table as a template: the cell's badge, class and stale mark written by the same helpers
# as the f-strings (filters), so that what is measured is the templating, not the rules.
DJANGO_TEMPLATE = (
    "{% load bench %}" + CAPTION + "\n"
    "{% for block in matrix.blocks %}{% with pk=block.category.pk name=block.category.name %}"
    '<tbody id="mx-cat-{{ pk }}"><tr class="cat-row"><th colspan="{{ ncols }}" scope="colgroup"'
    ' id="cat-{{ pk }}"><div class="sticky-left"><h3>{{ name }}</h3> <span class="cat-count">'
    '{{ block.count }} {{ block.count|pluralize:"story,stories" }}</span> <a class="cat-fold"'
    ' href="{{ block.slug|fold_url }}#matrix-section" hx-get="{{ block.slug|fold_url }}"'
    ' hx-target="#mx-cat-{{ pk }}" hx-select="#mx-cat-{{ pk }}" hx-swap="outerHTML">Hide'
    '<span class="visually-hidden"> {{ name }}</span></a>{% if block.category.blurb %}'
    ' <span class="blurb">{{ block.category.blurb }}</span>{% endif %}</div></th></tr>\n'
    "{% for group in block.groups %}{% if group.subgroup %}"
    '<tr class="sub-row"><th colspan="{{ ncols }}" scope="colgroup"><div class="sticky-left">'
    "<h4>{{ group.subgroup.name }}</h4></div></th></tr>\n{% endif %}"
    '<tr class="col-head"><th scope="col" class="story-col">Story</th>'
    '<th scope="col" class="persona">Persona</th>{% for p in matrix.products %}'
    '<th scope="col"><a href="{{ products }}{{ p.slug }}/">{{ p.name }}</a></th>{% endfor %}'
    "</tr>\n{% for row in group.rows %}"
    '<tr><th scope="row" class="story-col"><a href="{{ stories }}{{ row.story.pk }}/">'
    '{{ row.story.text }}</a><span class="persona-inline">{{ row.story.persona.slug }}</span>'
    '</th><td class="persona">{{ row.story.persona.slug }}</td>{% for c in row.cells %}'
    '<td class="{{ c.verdict|verdict_class }}"><a href="{{ cells }}{{ c.pk }}/">{{ c|badge }}'
    '{% if c|stale %} <small class="stale-mark" title="{{ c.evidence_as_of|stale_title }}">'
    'stale</small>{% endif %}</a><a class="flag-mini" href="{{ cells }}{{ c.pk }}/flag/"'
    ' aria-label="Flag {{ c.product.name }}">⚑</a></td>{% endfor %}</tr>\n'
    "{% endfor %}{% endfor %}</tbody>\n{% endwith %}{% endfor %}</table>"
)
# The same in Jinja2's words (filters take their argument in brackets; no ``{% load %}``).
JINJA_TEMPLATE = (
    DJANGO_TEMPLATE.removeprefix("{% load bench %}")
    .replace("{% with pk=block.category.pk name=block.category.name %}", "")
    .replace("{% endwith %}", "")
    .replace("{{ pk }}", "{{ block.category.pk }}")
    .replace("{{ name }}", "{{ block.category.name }}")
    .replace('{{ block.count|pluralize:"story,stories" }}', "{{ block.count|plural }}")
)

register = template.Library()
_NOW = freshness_now()


@register.filter
def badge(cell: CellLine) -> SafeString:
    return matrix_badge(cell.verdict, cell.proof, cell.quality)


@register.filter
def stale(cell: CellLine) -> bool:
    return freshness.is_stale(cell.verdict, cell.evidence_as_of, today=_NOW.today, days=_NOW.days)


@register.filter(name="stale_title")
def stale_title_of(as_of: date | None) -> str:
    return stale_title(as_of, _NOW.today)


@register.filter
def fold_url(slug: str) -> str:
    return links.MatrixLinks(ARENA, {}).fold_url(slug)


register.filter("verdict_class", verdict_class)


def plural(n: int) -> str:
    return "story" if n == 1 else "stories"


def matrix_of(stories: int, products: int, seed: int = 0) -> Matrix:
    """A matrix of ``stories`` rows of ``products`` cells, a few sub-groups, some stale cells."""
    rng = random.Random(seed)
    columns = [
        Product(pk=i, name=f"Product {i:03d}", slug=f"product-{i:03d}")
        for i in range(1, products + 1)
    ]
    categories = [
        CategoryLine(i, name, "", f"cat-{i}") for i, name in enumerate(CATEGORIES, start=1)
    ]
    personas = [PersonaLine(i, slug, slug) for i, slug in enumerate(PERSONAS, start=1)]
    today = freshness.today()
    rows = []
    for n in range(1, stories + 1):
        category = categories[(n - 1) * len(categories) // stories]
        subgroup = SubGroupLine(n // 25, f"Group {n // 25}") if n % 50 >= 25 else None
        story = StoryLine(
            n, f"I can resume step {n} after a crash", 2, category, subgroup, rng.choice(personas)
        )
        cells = []
        for p in columns:
            verdict = rng.choice(list(Verdict))
            applicable = verdict != Verdict.NA
            cells.append(
                CellLine(
                    pk=n * 1000 + p.pk,
                    story_id=n,
                    product=p,
                    verdict=verdict,
                    proof=rng.choice(list(Proof)) if applicable and verdict != "none" else None,
                    quality=(0 if verdict == "none" else rng.randint(1, 10))
                    if applicable
                    else None,
                    evidence_as_of=today - timedelta(days=rng.randint(0, 400)),
                )
            )
        rows.append(MatrixRow(story, cells))
    return Matrix(products=columns, rows=rows, total=stories, filters=MatrixFilters())


def builders(matrix: Matrix) -> dict[str, Callable[[], str]]:
    """Each way of writing the table, ready to run."""
    context = {
        "matrix": matrix,
        "ncols": len(matrix.products) + 2,
        "products": links.url_prefix("product-detail", ARENA),
        "stories": links.url_prefix("story-detail", ARENA),
        "cells": links.cells_prefix(),
    }
    django_template = template.Engine(libraries={"bench": __name__}).from_string(DJANGO_TEMPLATE)
    django_context = template.Context(context)
    environment = jinja2.Environment(autoescape=True)
    environment.filters.update(
        badge=badge,
        stale=stale,
        stale_title=stale_title_of,
        fold_url=fold_url,
        verdict_class=verdict_class,
        plural=plural,
    )
    jinja_template = environment.from_string(JINJA_TEMPLATE)
    return {
        "f-strings (web/pages/matrix.py)": lambda: matrix_table(matrix, ARENA),
        "Jinja2 template": lambda: jinja_template.render(context),
        "Django template": lambda: django_template.render(django_context),
    }


def same(outputs: Sequence[str]) -> bool:
    """Whether the outputs are the same HTML, whitespace between tags aside."""
    return len({re.sub(r">\s+<", "><", html).strip() for html in outputs}) == 1


def median_ms(build: Callable[[], str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        build()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--stories", type=int, default=300)
    parser.add_argument("--products", type=int, default=30)
    args = parser.parse_args(argv)
    matrix = matrix_of(args.stories, args.products)
    ways = builders(matrix)
    outputs = [build() for build in ways.values()]  # (also warms the caches, as a process does)
    if not same(outputs):
        print("error: the builders do not write the same table", file=sys.stderr)
        return 1
    cells = args.stories * args.products
    print(f"Matrix table, {args.stories} stories × {args.products} products ({cells:,} cells),")
    print(f"{len(outputs[0]):,} characters; median of {args.runs} runs each.\n")
    print("| builder | median ms | × f-strings |")
    print("|---|---:|---:|")
    base = 0.0
    for name, build in ways.items():
        ms = median_ms(build, args.runs)
        base = base or ms
        print(f"| {name} | {ms:.1f} | {ms / base:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
