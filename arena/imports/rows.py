"""The import of an arena's products and stories: those listed are active, the others retired."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from arena.imports.checks import ProductClashes
from arena.imports.run import ImportRun, day_text, place, retire_gone, sync_row
from core.text import arena_slugify, parse_figure
from products.models import Product
from stories.models import Story

# what an admin edit of a story or a product changes, and a re-import keeps when the edit came
# after the import that last wrote the row
STORY_EDIT_FIELDS = ("text", "category", "subgroup", "persona", "weight")


PRODUCT_EDIT_FIELDS = (
    "name",
    "slug",
    "tier",
    "stars",
    "stars_growth",
    "npm_weekly",
    "pypi_weekly",
    "popularity_as_of",
    # what the product is: only an arena file states these (the pages leave them alone)
    "website",
    "repository",
    "documentation",
    "licence",
    "languages",
    "hosting",
    "pricing",
    "first_release",
    "latest_release",
    "latest_version",
)


def _keep_edits(
    run: ImportRun, row: Story | Product, values: dict[str, Any], fields: Iterable[str], label: str
) -> bool:
    """A row an admin edited since the import that last wrote it keeps the edited values over the
    page's (in ``values``), or, told to overwrite, the page's win (and the row counts as imported
    again); one report line each. Whether any differed."""
    if not row.edited_since_import:
        return False
    differed = False
    for name in fields:
        if name not in values:  # a fact the pages do not state is not written
            continue
        current = getattr(row, name)
        if current != values[name]:
            differed = True
            line = (
                f"edited {name} {current} of {label} ({day_text(row.edited_at)}; "
                f"page says {values[name]})"
            )
            if run.overwrite:
                run.report.overwritten.append(f"overwrote {line}")
            else:
                run.report.kept.append(f"kept {line}")
                values[name] = current
    if run.overwrite:
        values["imported_at"] = timezone.now()
    return differed


def _relisted(
    run: ImportRun,
    row: Story | Product,
    values: dict[str, Any],
    fields: Iterable[str],
    label: str,
    name: str,
) -> int:
    """A row the pages list that the arena holds: shifted out of the way with the others (returns
    where it stood), an admin's edits kept over the page's, back on the pages if retired."""
    kind = "story" if isinstance(row, Story) else "product"
    was = row.position
    row.position += run.offset
    if _keep_edits(run, row, values, fields, label):
        run.report.count(kind, "changed" if run.overwrite else "kept")
    _listed_again(run, row, kind, label, name)
    return was


def _listed_again(run: ImportRun, row: Story | Product, kind: str, label: str, name: str) -> None:
    """A retired row the pages list again comes back, unless an admin retired it since the last
    import (it stays retired, unless the import is told to overwrite)."""
    if row.retired_at is None:
        return
    if row.edited_since_import and not run.overwrite:
        run.report.kept.append(
            f"kept {label} retired ({day_text(row.edited_at)}; the pages list it)"
        )
        run.report.count(kind, "kept")
        return
    sync_row(row, {"retired_at": None})
    run.report.restored.append(f"{kind} {name!r}")
    run.report.count(kind, "restored")


def import_products(run: ImportRun) -> None:
    ov, arena, report = run.record.overview, run.arena, run.report
    offset = run.offset
    values_of = _product_values(run)
    # found by the name the pages gave it (an admin may have renamed it since)
    existing_products = {
        (p.page_name or p.name): p for p in Product.all_objects.filter(arena=arena)
    }
    # a product whose name changed but whose slug did not is the same product, renamed
    by_slug = {p.slug: key for key, p in existing_products.items() if key not in ov.products}
    for name in ov.products:
        renamed = by_slug.get(values_of[name]["slug"])
        if name not in existing_products and renamed is not None:
            existing_products[name] = existing_products.pop(renamed)
    clashes = ProductClashes(ov.path, Product.all_objects.filter(arena=arena))
    Product.all_objects.filter(arena=arena).update(position=F("position") + offset)
    products = run.products
    for pos, name in enumerate(ov.products):
        values = values_of[name]
        product = existing_products.pop(name, None)
        if product is None:
            clashes.check(None, values)
            product = Product.all_objects.create(arena=arena, position=pos, **values)
            report.count("product", "added")
            products[name] = product
            continue
        was = _relisted(run, product, values, PRODUCT_EDIT_FIELDS, f"the product {name!r}", name)
        clashes.check(product, values)
        if place(product, values, pos, was):
            report.count("product", "changed")
        products[name] = product
    retire_gone(existing_products.values(), "product", offset, len(products), report)


def _product_values(run: ImportRun) -> dict[str, dict]:
    """Each product's stored values but its position, by name: as an arena file states them, or
    from the pages' leaderboard (figures as shown, popularity as of the evidence date)."""
    ov, stated = run.record.overview, run.record.products
    if stated is not None:
        return {
            name: {
                "name": name,
                "page_name": name,
                **dataclasses.asdict(stated[name]),
                "languages": list(stated[name].languages),
            }
            for name in ov.products
        }
    by_name = {lr.product: lr for lr in ov.leaderboard}
    values = {}
    for name in ov.products:
        lr = by_name.get(name)
        values[name] = {
            "name": name,
            "page_name": name,
            "slug": arena_slugify(name),
            "tier": lr.tier if lr else "",
            "stars": parse_figure(lr.stars) if lr else None,
            "stars_growth": parse_figure(lr.stars_growth) if lr else None,
            "npm_weekly": parse_figure(lr.npm_weekly) if lr else None,
            "pypi_weekly": parse_figure(lr.pypi_weekly) if lr else None,
            "popularity_as_of": ov.evidence_as_of if lr else None,
        }
    return values


def import_stories(run: ImportRun) -> None:
    record, ov, arena, report = run.record, run.record.overview, run.arena, run.report
    offset = run.offset
    cats, subgroups, personas = run.categories, run.subgroups, run.personas
    default_weight = settings.ARENA_DEFAULT_STORY_WEIGHT
    # found by the text the pages gave it (an admin may have reworded it since)
    existing_stories = {(s.page_text or s.text): s for s in Story.all_objects.filter(arena=arena)}
    Story.all_objects.filter(arena=arena).update(position=F("position") + offset)
    stories = run.stories
    for pos, ms in enumerate(ov.stories):
        weight = record.weights.get(ms.text)
        story = existing_stories.pop(ms.text, None)
        values = {
            "text": ms.text,
            "page_text": ms.text,
            "category": cats[ms.category],
            "subgroup": subgroups.get((ms.category, ms.group)) if ms.group else None,
            "persona": personas[ms.persona],
            "weight": weight or default_weight,
            "weight_published": weight is not None,
        }
        if weight is None and story is not None and story.weight_published:
            # pages that give no weight (an overview page alone) leave a known weight alone
            values["weight"], values["weight_published"] = story.weight, True
        elif weight is None:
            report.default_weight_stories.append(ms.text)
        if story is None:
            story = Story.all_objects.create(arena=arena, position=pos, **values)
            report.count("story", "added")
            stories[ms.text] = story
            continue
        was = _relisted(run, story, values, STORY_EDIT_FIELDS, f"the story “{ms.text}”", ms.text)
        if story.edited_since_import and values["weight"] == story.weight:
            values["weight_published"] = story.weight_published
        if place(story, values, pos, was):
            report.count("story", "changed")
        stories[ms.text] = story
    retire_gone(existing_stories.values(), "story", offset, len(stories), report)
