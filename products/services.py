"""Writes of an arena's products; their cells come from the stories app (``core.signals.placed``)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from core.conflicts import Fields, editable_update
from core.signals import placed, scores_changed
from core.text import clean_text
from products.models import Product


@transaction.atomic
def product_update(
    *,
    product: Product,
    changes: Fields,
    base_version: int | None = None,
    base: Fields | None = None,
) -> list[str]:
    """An editor's change of a product (``editable_update``); the fields written."""
    if "arena" in changes and changes["arena"].pk != product.arena_id:
        raise ValidationError({"arena": "A product stays in its arena; add it to the other one."})
    return editable_update(
        product,
        what="product",
        changes=changes,
        base_version=base_version,
        base=base,
        score_fields=("name",),  # the leaderboard breaks ties by name
    )


@transaction.atomic
def product_add(*, product: Product) -> Product:
    """Save a new product with an ``n/a`` cell for every story of its arena."""
    product.name = clean_text(product.name).strip()
    product.clean()
    product.save()
    placed.send(Product, row=product)  # its cells, one per story (the stories app)
    scores_changed.send(None, arena_id=product.arena_id)
    return product
