"""A synthetic arena of any size with plausible cells, for scale tests and benchmarks."""

from __future__ import annotations

import random
from datetime import timedelta

from django.db import transaction

from arena.models import Arena, Category, Persona, SubGroup
from arena.recompute import arena_recompute_scores
from products.models import Product
from stories import freshness
from stories.models import Cell, Evidence, Story
from stories.services import evidence_rows
from stories.values import CellValue, Proof, Quote, Verdict

PERSONAS = (
    ("agent-builder", "agent builder"),
    ("ai-native", "ai-native user"),
    ("backend-developer", "backend developer"),
    ("platform-engineer", "platform engineer"),
)
CATEGORIES = (
    "Reliability recovery",
    "Developer experience",
    "Performance scale",
    "Observability debugging",
    "Openness",
    "Privacy posture",
)
EVIDENCED_ORDER = [Verdict.FULL, Verdict.PARTIAL, Verdict.DISPUTED]
SOURCES = ("claimed-docs", "github", "community", "probe")
# (days before "Evidence as of" a cell was checked, from, to, how often): some past 180, stale
CHECK_AGES = ((0, 60, 6), (61, 179, 3), (181, 400, 1))


@transaction.atomic
def arena_generate(*, slug: str, products: int, stories: int, seed: int = 0) -> Arena:
    """A synthetic arena of ``products`` × ``stories`` cells under a free slug."""
    if products < 1 or stories < 1:
        raise ValueError("an arena needs at least one product and one story")
    if Arena.objects.filter(slug=slug).exists():
        raise ValueError(f"an arena with the slug {slug!r} exists; choose another slug")
    rng = random.Random(seed)
    today = freshness.today()
    # the check dates from their own sequence: the same verdicts as before they were dated
    dates = random.Random(f"{seed}:dates")
    arena = Arena.objects.create(
        slug=slug,
        name=f"Synthetic arena {slug}",
        description=f"A generated arena of {products} products and {stories} stories for scale tests.",
        updated=today,
        evidence_as_of=today,
    )
    cats = Category.objects.bulk_create(
        Category(
            arena=arena,
            name=name,
            blurb=f"{name} — generated stories about {name.lower()}",
            position=i,
        )
        for i, name in enumerate(CATEGORIES)
    )
    groups = SubGroup.objects.bulk_create(
        SubGroup(category=cat, name=f"{cat.name.split()[0]} group {g + 1}", position=g)
        for cat in cats
        for g in range(2)
    )
    prods = _products(arena, products, rng)
    cells = []
    for story in _stories(arena, stories, cats, groups, rng):
        for product in prods:
            low, high, _ = dates.choices(CHECK_AGES, [w for *_, w in CHECK_AGES])[0]
            cells.append(
                Cell(
                    story=story,
                    product=product,
                    **_value(rng).fields(),
                    rationale=f"Generated rationale for {product.name} on story {story.position + 1}.",
                    detail_published=True,
                    evidence_as_of=today - timedelta(days=dates.randint(low, high)),
                )
            )
    Cell.objects.bulk_create(cells, batch_size=2000)
    Evidence.objects.bulk_create(
        (row for c in cells if c.value.evidenced for row in evidence_rows(c, _quotes(c, rng))),
        batch_size=2000,
    )
    arena_recompute_scores(arena_id=arena.pk)
    return arena


def _products(arena: Arena, count: int, rng: random.Random) -> list[Product]:
    return Product.objects.bulk_create(
        Product(
            arena=arena,
            name=f"Product {i + 1:03d}",
            slug=f"product-{i + 1:03d}",
            tier=rng.choice(["free-tier", "paid", "open-source"]),
            position=i,
            stars=rng.randint(100, 50_000),
            stars_growth=rng.randint(10, 5_000),
            npm_weekly=rng.randint(1_000, 2_000_000),
            popularity_as_of=freshness.today(),
        )
        for i in range(count)
    )


def _stories(
    arena: Arena, count: int, cats: list[Category], groups: list[SubGroup], rng: random.Random
) -> list[Story]:
    """Spread over the categories (a third in no sub-group), in the matrix's order."""
    personas = [
        Persona.objects.get_or_create(slug=pslug, defaults={"label": label})[0]
        for pslug, label in PERSONAS
    ]
    story_objs = []
    for i in range(count):
        cat = cats[i * len(cats) // count]
        cat_groups = [g for g in groups if g.category_id == cat.pk]
        story_objs.append(
            Story(
                arena=arena,
                category=cat,
                subgroup=cat_groups[i % 2] if i % 3 else None,
                persona=personas[i % len(personas)],
                text=f"Generated story {i + 1}: a user can accomplish task number {i + 1} reliably",
                weight=rng.choice((1, 2, 2, 3)),
                position=i,
            )
        )
    story_objs.sort(
        key=lambda s: (s.category.position, s.subgroup.position if s.subgroup else -1, s.position)
    )
    for i, s in enumerate(story_objs):
        s.position = i
    Story.objects.bulk_create(story_objs)
    return story_objs


def _value(rng: random.Random) -> CellValue:
    roll = rng.random()
    if roll < 0.05:
        return CellValue(Verdict.NA)
    if roll < 0.2:
        return CellValue(Verdict.NONE, quality=0)
    verdict = rng.choices(EVIDENCED_ORDER, [5, 6, 1])[0]
    proof = rng.choices(list(Proof), [2, 3, 6, 1, 1])[0]
    quality = {Verdict.FULL: rng.randint(7, 10), Verdict.PARTIAL: rng.randint(2, 7)}.get(
        verdict, rng.randint(1, 5)
    )
    return CellValue(verdict, proof, quality)


def _quotes(cell: Cell, rng: random.Random) -> list[Quote]:
    """Two quotes: the newest checked on the cell's date, the other a month before."""
    url = f"https://example.com/evidence/{cell.story.position + 1}/{cell.product.slug}"
    as_of = cell.evidence_as_of
    if as_of is None:  # (every generated cell is dated)
        return []
    return [
        Quote(
            source=rng.choice(SOURCES),
            quote=f"Generated quote {k + 1}.",
            url=f"{url}/{k + 1}",
            checked_on=as_of - timedelta(days=k * 30),
        )
        for k in range(2)
    ]
