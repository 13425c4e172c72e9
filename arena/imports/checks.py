"""A record checked against the rows before they are written: a name or slug another arena,
product or story holds (retired or renamed ones too) is refused with ``FILE: reason`` inside the
import's transaction, never an ``IntegrityError``. (The readers check a record against itself.)"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena.imports.limits import short
from arena.imports.records import ArenaRecord
from arena.models import Arena
from products.models import Product
from stories.models import Story


class ImportRefused(Exception):
    """The pages clash with what the database holds; nothing was imported."""


def import_arena_find(record: ArenaRecord, *, slug: str) -> Arena | None:
    """The arena the record updates: by slug; for page dumps, which state no slug, else by name
    (an admin may have changed the slug); None for a new one. Refuses a record whose slug names
    one arena and whose name another (an arena file states its slug: a new slug with the name of
    another arena is a new arena that cannot have that name), and a story whose text another story
    of the arena holds."""
    ov = record.overview
    arena = Arena.objects.filter(slug=slug).first()
    other = Arena.objects.filter(name=ov.name).exclude(slug=slug).first()
    if arena is None and record.slug is None:
        arena, other = other, None
    if other is not None:
        belongs = (
            f"and the slug {slug!r} belongs to the arena {arena.name!r}"
            if arena is not None
            else f"and this file's slug is {slug!r}"
        )
        raise ImportRefused(
            f"{ov.path}: the arena name {ov.name!r} already belongs to the arena {other.slug!r}, "
            f"{belongs}; give the arena its own slug and name (nothing was imported)"
        )
    if arena is not None:
        _story_clashes(record, arena)
    return arena


def _story_clashes(record: ArenaRecord, arena: Arena) -> None:
    """A story is found by the text the pages gave it (``page_text``, else its text): a listed text
    that is the current text of another story (one an admin reworded, or a retired one) would be
    a second story with that text."""
    rows = list(Story.all_objects.filter(arena=arena).only("pk", "text", "page_text", "retired_at"))
    found = {(s.page_text or s.text): s.pk for s in rows}
    by_text = {s.text: s for s in rows}
    path = record.overview.path
    for ms in record.overview.stories:
        holder = by_text.get(ms.text)
        if holder is not None and holder.pk != found.get(ms.text):
            raise ImportRefused(
                f"{path}: the story {short(ms.text, 60)} is the text of {_story(holder)}; "
                "reword one of them (nothing was imported)"
            )


def _story(story: Story) -> str:
    what = "a retired story" if story.retired_at is not None else "another story"
    return f"{what}, which the pages call {short(story.page_text, 60)}" if story.page_text else what


class ProductClashes:
    """The names and slugs the arena's products hold before the import: ``check`` refuses values
    that another product holds (a retired one included) or that an earlier listed product takes.
    Writing in any order then never meets the unique constraints."""

    FIELDS = ("name", "slug")

    def __init__(self, path: str, rows: Iterable[Product]):
        self.path = path
        rows = list(rows)
        self.held = {f: {getattr(p, f): p for p in rows} for f in self.FIELDS}
        self.taken: dict[str, dict[Any, str]] = {f: {} for f in self.FIELDS}

    def check(self, row: Product | None, values: dict[str, Any]) -> None:
        """Before ``row`` (None: a new product) is written with ``values``."""
        name = values["name"]
        for field in self.FIELDS:
            value = values[field]
            holder = self.held[field].get(value)
            if holder is not None and (row is None or holder.pk != row.pk):
                raise ImportRefused(
                    f"{self.path}: product {name!r} would take the {field} {value!r} of "
                    f"{_product(holder)}; rename one of them (nothing was imported)"
                )
            earlier = self.taken[field].setdefault(value, name)
            if earlier != name:
                raise ImportRefused(
                    f"{self.path}: products {earlier!r} and {name!r} would both have the "
                    f"{field} {value!r}; rename one of them (nothing was imported)"
                )


def _product(product: Product) -> str:
    what = "the retired product" if product.retired_at is not None else "the product"
    called = product.page_name
    also = f", which the pages call {called!r}" if called and called != product.name else ""
    return f"{what} {product.name!r}{also}"
