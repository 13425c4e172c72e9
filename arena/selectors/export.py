"""Open data: what the public pages show of an arena (no retired rows, flags or history) as an
arena file (``arena.dataformat``) and as one CSV row per cell, in a fixed number of queries."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

from django.db.models import Case, OuterRef, TextField, Value, When

from arena import dataformat
from arena.models import AdjacentArena, Arena, Category, Source, SubGroup
from arena.selectors.cells import CELL_LINE_FIELDS, QUOTE_FIELDS
from arena.selectors.counts import row_count
from products.models import Product
from stories.models import Cell, Evidence, Story


def _day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def arena_export_document(*, arena: Arena) -> dict[str, Any]:
    """The arena as an arena file (a dict in ``dataformat.SECTIONS`` order, keys in the order the
    file shows them). Eight queries."""
    stories = list(
        Story.objects.filter(arena=arena)
        .order_by("position")
        .values_list(
            "pk", "text", "category_id", "subgroup_id", "persona__slug", "persona__label", "weight"
        )
    )
    products = list(Product.objects.filter(arena=arena).order_by("position"))
    categories, groups = _structure(arena, stories)
    personas: dict[str, str] = {}
    for s in stories:
        personas.setdefault(s[4], s[5])
    keys = {s[0]: i for i, s in enumerate(stories, start=1)}
    slugs = {p.pk: p.slug for p in products}
    category_names = {c.pk: c.name for c in categories}
    group_names = {g.pk: g.name for gs in groups.values() for g in gs}
    return {
        "format": dataformat.FORMAT,
        "version": dataformat.VERSION,
        "arena": {
            "slug": arena.slug,
            "name": arena.name,
            "description": arena.description,
            "updated": _day(arena.updated),
            "evidence_as_of": _day(arena.evidence_as_of),
        },
        "categories": [
            {"name": c.name, "blurb": c.blurb, "groups": [g.name for g in groups.get(c.pk, [])]}
            for c in categories
        ],
        "personas": [{"slug": slug, "label": label} for slug, label in personas.items()],
        "products": [product_data(p) for p in products],
        "stories": [
            {
                "key": keys[pk],
                "text": text,
                "category": category_names[category],
                "group": group_names.get(group) if group is not None else None,
                "persona": persona,
                "weight": weight,
            }
            for pk, text, category, group, persona, _label, weight in stories
        ],
        "cells": _cells(arena, keys, slugs),
        "adjacent": [
            {
                "name": a.name,
                "product_count": a.product_count,
                "leader": a.leader,
                "shares": a.shares or None,
            }
            for a in AdjacentArena.objects.filter(arena=arena).order_by("position")
        ],
        "sources": _sources(arena),
    }


def _structure(
    arena: Arena, stories: list[Any]
) -> tuple[list[Category], dict[int, list[SubGroup]]]:
    """The categories and sub-groups (by category) that hold a story, in page order: two queries."""
    used_categories = {s[2] for s in stories}
    used_groups = {s[3] for s in stories if s[3] is not None}
    categories = [
        c
        for c in Category.objects.filter(arena=arena).order_by("position")
        if c.pk in used_categories
    ]
    groups: dict[int, list[SubGroup]] = {}
    for g in SubGroup.objects.filter(category__arena=arena).order_by("category_id", "position"):
        if g.pk in used_groups:
            groups.setdefault(g.category_id, []).append(g)
    return categories, groups


def _sources(arena: Arena) -> list[dict[str, Any]]:
    """The arena's source list, by key: one query."""
    return [
        {"key": s.key, "title": s.title or None, "url": s.url or None, "accessed": _day(s.accessed)}
        for s in Source.objects.filter(arena=arena).order_by("key")
    ]


def product_data(p: Product) -> dict[str, Any]:
    """A product as the arena file and the API's arena (``ProductSerializer``) write it."""
    return {
        "slug": p.slug,
        "name": p.name,
        "tier": str(p.tier),
        "stars": p.stars,
        "stars_growth": p.stars_growth,
        "npm_weekly": p.npm_weekly,
        "pypi_weekly": p.pypi_weekly,
        "popularity_as_of": _day(p.popularity_as_of),
        # what the product is; null (an empty list) where nobody stated it
        "website": p.website or None,
        "repository": p.repository or None,
        "documentation": p.documentation or None,
        "licence": p.licence or None,
        "languages": list(p.languages),
        "hosting": p.hosting or None,
        "pricing": p.pricing or None,
        "first_release": _day(p.first_release),
        "latest_release": _day(p.latest_release),
        "latest_version": p.latest_version or None,
    }


def _cells(arena: Arena, keys: dict[int, int], slugs: dict[int, str]) -> list[dict[str, Any]]:
    """Every cell between the stories (by their keys in the file) and the products (by slug), in
    matrix order, with its evidence: two queries."""
    cells = list(
        Cell.objects.filter(story__arena=arena, story__in=keys, product__in=slugs)
        .order_by("story__position", "product__position")
        .values_list(*CELL_LINE_FIELDS, "rationale", "detail_published")
    )
    evidence: dict[int, list[dict[str, Any]]] = {}
    for cell_id, source, quote, url, checked_on in (
        Evidence.objects.filter(cell__story__arena=arena)
        .order_by("cell_id", "position", "pk")
        .values_list(*QUOTE_FIELDS)
    ):
        evidence.setdefault(cell_id, []).append(
            {"source": source, "quote": quote, "url": url or None, "checked_on": _day(checked_on)}
        )
    return [
        {
            "story": keys[story],
            "product": slugs[product],
            "verdict": verdict,
            "proof": proof,
            "quality": quality,
            "rationale": rationale if published else None,
            "evidence_as_of": _day(as_of),
            "evidence": evidence.get(pk, []),
        }
        for pk, story, product, verdict, proof, quality, as_of, rationale, published in cells
    ]


# The CSV's columns (its header row) and the value each reads, one row per cell in matrix order.
CSV_FIELDS = {
    "story_id": "story_id",
    "story": "story__text",
    "category": "story__category__name",
    "subgroup": "story__subgroup__name",
    "persona": "story__persona__slug",
    "weight": "story__weight",
    "product": "product__slug",
    "product_name": "product__name",
    "cell_id": "pk",
    "verdict": "verdict",
    "proof": "proof",
    "quality": "quality",
    "rationale": "shown_rationale",
    "evidence_count": "evidence_count",
    "evidence_as_of": "evidence_as_of",
}
CSV_COLUMNS = tuple(CSV_FIELDS)


def arena_csv_rows(*, arena: Arena) -> Iterator[tuple]:
    """One row per cell of the pages' stories and products (``CSV_COLUMNS``), in matrix order."""
    evidence_count = row_count(Evidence.objects.filter(cell=OuterRef("pk")), per="cell")
    rows = (
        Cell.objects.filter(
            story__arena=arena,
            story__retired_at__isnull=True,
            product__retired_at__isnull=True,
        )
        .annotate(
            evidence_count=evidence_count,
            # the rationale as the pages show it: none where no detail is published
            shown_rationale=Case(
                When(detail_published=True, then="rationale"),
                default=Value(""),
                output_field=TextField(),
            ),
        )
        .order_by("story__position", "product__position")
        .values_list(*CSV_FIELDS.values())
    )
    yield from rows.iterator(chunk_size=2000)
