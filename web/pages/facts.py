"""What a product is, as rows of facts (a column per product). A fact nobody stated reads
"unknown": never a guess (a product without the "free-tier" mark may still have one)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from core.text import format_figure
from products.facts import open_source
from products.models import Hosting, Product

UNKNOWN = "unknown"


@dataclass(frozen=True)
class Fact:
    text: str  # what is shown; UNKNOWN when nobody stated it
    url: str = ""  # a link (the product's website, repository, documentation)
    note: str = ""  # a muted aside ("OSI-approved", "as of 2026-09-28")

    @property
    def known(self) -> bool:
        return self.text != UNKNOWN


@dataclass(frozen=True)
class FactRow:
    label: str
    key: str  # a stable name (a row's id, what tests and styles find it by)
    values: tuple[Fact, ...]  # one per product, in the order given


def _link(url: str) -> Fact:
    return Fact(url, url=url) if url else Fact(UNKNOWN)


def _day(day: date | None) -> str:
    return day.isoformat() if day else ""


def _licence(p: Product) -> Fact:
    if not p.licence:
        return Fact(UNKNOWN)
    free = open_source(p.licence)
    return Fact(p.licence, note="open source (OSI-approved)" if free else "not open source")


def _release(p: Product) -> Fact:
    if not (p.latest_release or p.latest_version):
        return Fact(UNKNOWN)
    text = " ".join(part for part in (p.latest_version, _day(p.latest_release)) if part)
    return Fact(text)


def _figure(value: int | None, unit: str, as_of: date | None) -> Fact:
    if value is None:
        return Fact(UNKNOWN)
    return Fact(f"{format_figure(value)}{unit}", note=f"as of {_day(as_of)}" if as_of else "")


def _one(p: Product) -> list[tuple[str, str, Fact]]:
    as_of = p.popularity_as_of
    return [
        ("website", "Website", _link(p.website)),
        ("repository", "Repository", _link(p.repository)),
        ("documentation", "Documentation", _link(p.documentation)),
        ("licence", "Licence (SPDX)", _licence(p)),
        ("languages", "Languages and SDKs", Fact(", ".join(p.languages) or UNKNOWN)),
        ("hosting", "Hosting", Fact(Hosting(p.hosting).label if p.hosting else UNKNOWN)),
        ("pricing", "Pricing", Fact(p.pricing or UNKNOWN)),
        ("free-tier", "Free tier", Fact("yes" if p.tier == "free-tier" else UNKNOWN)),
        ("first-release", "First release", Fact(_day(p.first_release) or UNKNOWN)),
        ("latest-release", "Latest release", _release(p)),
        ("stars", "GitHub stars", _figure(p.stars, "", as_of)),
        ("stars-growth", "Stars gained", _figure(p.stars_growth, "/yr", as_of)),
        ("npm", "npm downloads", _figure(p.npm_weekly, "/wk", as_of)),
        ("pypi", "PyPI downloads", _figure(p.pypi_weekly, "/wk", as_of)),
    ]


def product_facts(*shown: Product | Iterable[Product] | str) -> list[FactRow]:
    """Each argument a product or a list of them; an empty one (a missing variable) skipped."""
    products: list[Product] = []
    for item in shown:
        if isinstance(item, Product):
            products.append(item)
        elif item and not isinstance(item, str):
            products.extend(item)
    columns = [_one(p) for p in products]
    return [
        FactRow(label, key, tuple(column[i][2] for column in columns))
        for i, (key, label, _) in enumerate(columns[0] if columns else [])
    ]
