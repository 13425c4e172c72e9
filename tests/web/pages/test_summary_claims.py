"""Every summary claim of the arena page, recomputed here from the database on its own terms and
compared with what the page (and its markdown) shows: counts, freshness, verified counts,
evidence shares and stale shares."""

from __future__ import annotations

import datetime
import math
import re
from html import unescape

import pytest
from django.utils import timezone

from arena.models import Arena
from products.models import Product
from stories.models import Cell, CellChange, Story
from stories.services import cell_correct
from stories.values import CellValue

pytestmark = pytest.mark.django_db

ARENA = "/arenas/durable-execution-engines/"


def text_of(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def half_up(x: float) -> int:
    return math.floor(x + 0.5)


def _claims(arena: Arena, stale_days: int) -> dict:
    """The page's claims from the cells, as a skeptical reader would count them."""
    cells = list(
        Cell.objects.filter(
            story__arena=arena, story__retired_at__isnull=True, product__retired_at__isnull=True
        ).prefetch_related("evidence")
    )
    judged = [c for c in cells if c.verdict != "n/a"]
    dates = sorted(c.evidence_as_of for c in judged if c.evidence_as_of)
    cutoff = timezone.localdate() - datetime.timedelta(days=stale_days)
    products = {}
    for p in Product.objects.filter(arena=arena):
        mine = [c for c in judged if c.product_id == p.pk]
        with_evidence = [c for c in mine if c.verdict in ("full", "partial", "disputed")]
        verified = [c for c in with_evidence if c.proof in ("probed", "community")]
        published = [
            c for c in mine if c.detail_published and (c.evidence.all() or c.rationale.strip())
        ]
        stale = [c for c in mine if c.evidence_as_of is None or c.evidence_as_of < cutoff]
        disputed = sum(c.verdict == "disputed" for c in mine)
        products[p.name] = (
            f"{len(verified)}/{len(with_evidence)} verified"
            + (f" · {disputed} disputed" if disputed else "")
            + f" · {len(published)}/{len(mine)} with published evidence"
            + f" ({half_up(100 * len(published) / len(mine))}%)"
            + (f" · {len(stale)} stale ({half_up(100 * len(stale) / len(mine))}%)" if stale else "")
        )
    return {
        "stories": Story.objects.filter(arena=arena).count(),
        "cells": len(cells),
        "judged": len(judged),
        "na": len(cells) - len(judged),
        "dates": (dates[0], dates[-1]),
        "products": products,
    }


@pytest.mark.parametrize("stale_days", [180, 30])
def test_arena_page_claims_match_the_data(client, seeded_arena, settings, stale_days):
    settings.EVIDENCE_STALE_DAYS = stale_days
    claims = _claims(seeded_arena, stale_days)
    text = text_of(client.get(ARENA))
    oldest, newest = claims["dates"]
    assert oldest == newest  # the seed: one import, one date
    header = (
        f"{claims['stories']} user stories · {claims['cells']} judged cells "
        f"({claims['na']} of them not applicable) · updated 2026-09-16 · "
        f"Evidence as of {newest:%Y-%m-%d}"
    )
    assert header in text
    # the bundled arena: 53 stories of 6 products, 12 of the 318 cells n/a
    assert (claims["stories"], claims["cells"], claims["na"]) == (53, 318, 12)
    for name, line in claims["products"].items():
        assert line in text, name
    # "stale" is claimed only where it holds
    assert ("stale (" in text) == (stale_days == 30)


def test_the_leaders_share_is_none_published(client, seeded_arena):
    # the issue's case: the two leading products' verdicts come from the arena summary alone
    claims = _claims(seeded_arena, 180)["products"]
    assert "15/41 verified · 0/49 with published evidence (0%)" == claims["Temporal"]
    assert claims["DBOS"].startswith("27/41 verified · 0/51 with published evidence (0%)")


def test_freshness_claim_follows_the_cells(client, seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="full").first()
    cell_correct(
        cell=cell,
        value=CellValue("partial", "claimed", 5),
        note="Re-checked",
    )
    claims = _claims(seeded_arena, 180)
    oldest, newest = claims["dates"]
    assert oldest < newest
    # the verdicts were updated by that correction, after the pages' date
    changed = CellChange.objects.exclude(kind="import").latest("changed_at").changed_at
    updated = timezone.localtime(changed).date()
    assert updated > seeded_arena.updated
    text = text_of(client.get(ARENA))
    assert (
        f"updated {updated:%Y-%m-%d} · Evidence checked {oldest:%Y-%m-%d} to {newest:%Y-%m-%d}"
        in text
    )
    md = client.get("/arenas/durable-execution-engines.md").content.decode()
    assert (
        f"- Updated: {updated:%Y-%m-%d}; evidence checked: {oldest:%Y-%m-%d} to {newest:%Y-%m-%d}"
        in md
    )
    assert f"judged cells: {claims['cells']} ({claims['na']} of them not applicable)" in md


def test_product_page_claims_match_the_data(client, seeded_arena, settings):
    settings.EVIDENCE_STALE_DAYS = 30
    claims = _claims(seeded_arena, 30)["products"]
    text = text_of(client.get(f"{ARENA}products/inngest/"))
    verified, _, rest = claims["Inngest"].partition(" · ")
    assert verified in text
    share = re.search(r"\d+/\d+ with published evidence \(\d+%\)", claims["Inngest"]).group()
    assert share in text
    stale = re.search(r"(\d+) stale \((\d+)%\)", claims["Inngest"])
    judged = int(re.search(r"/(\d+) with published", claims["Inngest"]).group(1))
    assert f"{stale[1]} of {judged} judged cells ({stale[2]}%)" in text
