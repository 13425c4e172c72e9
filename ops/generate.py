"""A synthetic arena of any size with plausible cells, for scale tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date, timedelta

from django.db import transaction

from arena.models import Arena, Category, Persona, SubGroup
from arena.recompute import arena_recompute_scores
from products.models import Product
from stories import freshness
from stories.models import Cell, Evidence, Story
from stories.values import CellValue, Proof, Verdict

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
    # the check dates from their own sequence: the same verdicts as before they were dated
    dates = random.Random(f"{seed}:dates")
    today = freshness.today()
    arena = Arena.objects.create(
        slug=slug,
        name=f"Synthetic arena {slug}",
        description=f"A generated arena of {products} products and {stories} stories for scale tests.",
        updated=today,
        evidence_as_of=today,
    )
    prods = Product.objects.bulk_create(
        Product(
            arena=arena,
            name=f"Product {i + 1:03d}",
            slug=f"product-{i + 1:03d}",
            tier=rng.choice(["free-tier", "paid", "open-source"]),
            position=i,
            stars=rng.randint(100, 50_000),
            stars_growth=rng.randint(10, 5_000),
            npm_weekly=rng.randint(1_000, 2_000_000),
            popularity_as_of=today,
        )
        for i in range(products)
    )
    cells = [
        Cell(
            story=story,
            product=product,
            **_value(rng).fields(),
            rationale=f"Generated rationale for {product.name} on story {story.position + 1}.",
            detail_published=True,
            evidence_as_of=today - timedelta(days=_age(dates)),
        )
        for story in _stories(arena, stories, rng)
        for product in prods
    ]
    Cell.objects.bulk_create(cells, batch_size=2000)
    Evidence.objects.bulk_create(_quotes(cells, rng, today), batch_size=2000)
    arena_recompute_scores(arena_id=arena.pk)
    return arena


def _stories(arena: Arena, count: int, rng: random.Random) -> list[Story]:
    """Spread over the categories, two sub-groups each (a third in none), in the matrix's order."""
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
    personas = [
        Persona.objects.get_or_create(slug=s, defaults={"label": label})[0] for s, label in PERSONAS
    ]
    made = [
        Story(
            arena=arena,
            category=(cat := cats[i * len(cats) // count]),
            subgroup=groups[2 * cat.position + i % 2] if i % 3 else None,
            persona=personas[i % len(personas)],
            text=f"Generated story {i + 1}: a user can accomplish task number {i + 1} reliably",
            weight=rng.choice((1, 2, 2, 3)),
            position=i,
        )
        for i in range(count)
    ]
    made.sort(
        key=lambda s: (s.category.position, s.subgroup.position if s.subgroup else -1, s.position)
    )
    for i, s in enumerate(made):
        s.position = i
    return Story.objects.bulk_create(made)


def _quotes(cells: list[Cell], rng: random.Random, today: date) -> Iterator[Evidence]:
    """Two per evidenced cell: the newest checked on the cell's date, the other a month before."""
    for c in cells:
        for k in range(2) if c.value.evidenced else ():
            yield Evidence(
                cell=c,
                position=k,
                source=rng.choice(SOURCES),
                quote=f"Generated quote {k + 1}.",
                url=f"https://example.com/evidence/{c.story.position + 1}/{c.product.slug}/{k + 1}",
                checked_on=(c.evidence_as_of or today) - timedelta(days=k * 30),
            )


def _age(dates: random.Random) -> int:
    low, high, _ = dates.choices(CHECK_AGES, [w for *_, w in CHECK_AGES])[0]
    return dates.randint(low, high)


def _value(rng: random.Random) -> CellValue:
    roll = rng.random()
    if roll < 0.05:
        return CellValue(Verdict.NA)
    if roll < 0.2:
        return CellValue(Verdict.NONE, quality=0)
    verdict = rng.choices([Verdict.FULL, Verdict.PARTIAL, Verdict.DISPUTED], [5, 6, 1])[0]
    proof = rng.choices(list(Proof), [2, 3, 6, 1, 1])[0]
    quality = {Verdict.FULL: rng.randint(7, 10), Verdict.PARTIAL: rng.randint(2, 7)}.get(
        verdict, rng.randint(1, 5)
    )
    return CellValue(verdict, proof, quality)
