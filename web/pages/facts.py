"""What a product is, as rows of facts (a column per product). A fact nobody stated has no text and
reads "unknown": never a guess (a product without the "free-tier" mark may still have one)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from core.text import format_figure
from products.facts import open_source
from products.models import Hosting, Product


@dataclass(frozen=True)
class Fact:
    text: str = ""  # "" when nobody stated it
    url: str = ""  # a link (the product's website, repository, documentation)
    note: str = ""  # a muted aside ("OSI-approved", "as of 2026-09-28")


@dataclass(frozen=True)
class FactRow:
    label: str
    key: str  # a stable name (a row's id, what tests and styles find it by)
    values: tuple[Fact, ...]  # one per product, in the order given


_LICENCE_NOTES = {True: "open source (OSI-approved)", False: "not open source", None: ""}


def _day(day: date | None) -> str:
    return day.isoformat() if day else ""


def _figure(value: int | None, unit: str, as_of: date | None) -> Fact:
    if value is None:
        return Fact()
    return Fact(f"{format_figure(value)}{unit}", note=f"as of {_day(as_of)}" if as_of else "")


def _one(p: Product) -> list[tuple[str, str, Fact]]:
    as_of, free = p.popularity_as_of, open_source(p.licence)
    release = " ".join(part for part in (p.latest_version, _day(p.latest_release)) if part)
    return [
        ("website", "Website", Fact(p.website, url=p.website)),
        ("repository", "Repository", Fact(p.repository, url=p.repository)),
        ("documentation", "Documentation", Fact(p.documentation, url=p.documentation)),
        ("licence", "Licence (SPDX)", Fact(p.licence, note=_LICENCE_NOTES[free])),
        ("languages", "Languages and SDKs", Fact(", ".join(p.languages))),
        ("hosting", "Hosting", Fact(Hosting(p.hosting).label if p.hosting else "")),
        ("pricing", "Pricing", Fact(p.pricing)),
        ("free-tier", "Free tier", Fact("yes" if p.tier == "free-tier" else "")),
        ("first-release", "First release", Fact(_day(p.first_release))),
        ("latest-release", "Latest release", Fact(release)),
        ("stars", "GitHub stars", _figure(p.stars, "", as_of)),
        ("stars-growth", "Stars gained", _figure(p.stars_growth, "/yr", as_of)),
        ("npm", "npm downloads", _figure(p.npm_weekly, "/wk", as_of)),
        ("pypi", "PyPI downloads", _figure(p.pypi_weekly, "/wk", as_of)),
    ]


def product_facts(shown: Product | Iterable[Product]) -> list[FactRow]:
    """A product's facts, or side by side a column per product of a list."""
    columns = [_one(p) for p in ([shown] if isinstance(shown, Product) else shown)]
    return [
        FactRow(label, key, tuple(column[i][2] for column in columns))
        for i, (key, label, _) in enumerate(columns[0] if columns else [])
    ]
