"""Open data: what the public pages show of an arena (no retired rows, flags or history) as an
arena file (``arena.dataformat``) and as one CSV row per cell, in a fixed number of queries."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

from django.db.models import Case, OuterRef, Prefetch, TextField, Value, When

from arena import dataformat
from arena.models import AdjacentArena, Arena, Category, Source, SubGroup
from arena.selectors.arenas import row_count
from products.models import Product
from stories.models import Cell, Evidence, Story

QUOTE_FIELDS = ("source", "quote", "url", "checked_on")
ARENA_FIELDS = ("slug", "name", "description", "updated", "evidence_as_of")
PRODUCT_FIELDS = (
    *("slug", "name", "tier", "stars", "stars_growth", "npm_weekly", "pypi_weekly"),
    *("popularity_as_of", "website", "repository", "documentation", "licence", "languages"),
    *("hosting", "pricing", "first_release", "latest_release", "latest_version"),
)
# what the file writes as null where the site holds a blank text
BLANK_IS_NULL = {
    *("website", "repository", "documentation", "licence", "hosting", "pricing"),
    *("latest_version", "shares", "title", "url"),
}


def _plain(values: Mapping[str, object]) -> dict[str, Any]:
    """Days as ISO text, and a blank text null where the file says so."""
    return {
        k: v.isoformat() if isinstance(v, date) else (v or None) if k in BLANK_IS_NULL else v
        for k, v in values.items()
    }


def arena_export_document(*, arena: Arena) -> dict[str, Any]:
    """The arena as an arena file (``dataformat.SECTIONS``, keys in file order), its cells an
    iterator: eight queries."""
    stories = list(
        Story.objects.filter(arena=arena)
        .order_by("position")
        .values(
            "pk", "text", "category_id", "subgroup_id", "persona__slug", "persona__label", "weight"
        )
    )
    keys = {s["pk"]: i for i, s in enumerate(stories, start=1)}
    products = list(
        Product.objects.filter(arena=arena).order_by("position").values("pk", *PRODUCT_FIELDS)
    )
    slugs = {p.pop("pk"): p["slug"] for p in products}
    # the categories and sub-groups that hold a story, in page order: two queries
    groups = Prefetch(
        "subgroups", SubGroup.objects.filter(pk__in={s["subgroup_id"] for s in stories})
    )
    used = Category.objects.filter(arena=arena, pk__in={s["category_id"] for s in stories})
    categories = {c.pk: c for c in used.order_by("position").prefetch_related(groups)}
    group_names = {g.pk: g.name for c in categories.values() for g in c.subgroups.all()}
    return {
        "format": dataformat.FORMAT,
        "version": dataformat.VERSION,
        "arena": _plain({k: getattr(arena, k) for k in ARENA_FIELDS}),
        "categories": [
            {"name": c.name, "blurb": c.blurb, "groups": [g.name for g in c.subgroups.all()]}
            for c in categories.values()
        ],
        "personas": [
            {"slug": slug, "label": label}
            for slug, label in {s["persona__slug"]: s["persona__label"] for s in stories}.items()
        ],
        "products": [_plain(p) for p in products],
        "stories": [
            {
                "key": keys[s["pk"]],
                "text": s["text"],
                "category": categories[s["category_id"]].name,
                "group": group_names.get(s["subgroup_id"]),
                "persona": s["persona__slug"],
                "weight": s["weight"],
            }
            for s in stories
        ],
        "cells": _cells(keys, slugs),
        "adjacent": [
            _plain(a)
            for a in AdjacentArena.objects.filter(arena=arena)
            .order_by("position")
            .values("name", "product_count", "leader", "shares")
        ],
        "sources": [
            _plain(s)
            for s in Source.objects.filter(arena=arena)
            .order_by("key")
            .values("key", "title", "url", "accessed")
        ],
    }


def _cells(keys: dict[int, int], slugs: dict[int, str]) -> Iterator[dict[str, Any]]:
    """Every cell with its evidence in matrix order, read as written: two queries side by side."""
    order = ("story__position", "product__position", "pk")
    cells = Cell.objects.filter(story__in=keys, product__in=slugs).order_by(*order)
    quotes = Evidence.objects.filter(cell__in=cells).order_by(
        *(f"cell__{o}" for o in order), "position", "pk"
    )
    pending = quotes.values_list("cell_id", "source", "quote", "url", "checked_on").iterator()
    quote = next(pending, None)
    for c in cells.iterator():
        evidence = []
        while quote is not None and quote[0] == c.pk:
            evidence.append(_plain(dict(zip(QUOTE_FIELDS, quote[1:], strict=True))))
            quote = next(pending, None)
        yield {
            "story": keys[c.story_id],
            "product": slugs[c.product_id],
            "verdict": c.verdict,
            "proof": c.proof,
            "quality": c.quality,
            "rationale": c.rationale if c.detail_published else None,
            "evidence_as_of": c.evidence_as_of and c.evidence_as_of.isoformat(),
            "evidence": evidence,
        }


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
        Cell.objects.on_pages()
        .filter(story__arena=arena)
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
