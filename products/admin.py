"""The admin of products: added, edited (versioned: a stale form is refused or merged) and retired
through ``products.services``; never deleted."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.http import HttpRequest

from products.models import Product
from products.services import product_add, product_retire, product_update
from stories.admin_base import RefusesStaleSaves, RetireActions
from stories.conflicts import EditConflict
from stories.forms import VersionedForm


class ProductForm(VersionedForm):
    what = "product"

    class Meta:
        model = Product
        fields = [
            "arena",
            "name",
            "slug",
            "tier",
            "position",
            "stars",
            "stars_growth",
            "npm_weekly",
            "pypi_weekly",
            "popularity_as_of",
        ]


@admin.register(Product)
class ProductAdmin(RetireActions, RefusesStaleSaves):
    form = ProductForm
    retire_service = product_retire
    list_display = [
        "name",
        "arena",
        "slug",
        "tier",
        "position",
        "stars",
        "npm_weekly",
        "pypi_weekly",
        "retired_at",
    ]
    list_filter = ["arena", "tier", "retired_at"]
    search_fields = ["name", "slug"]
    ordering = ["arena", "position"]
    prepopulated_fields = {"slug": ["name"]}
    list_select_related = ["arena"]

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        # a product stays in its arena: its cells belong to that arena's stories
        return ["arena", "retired_at"] if obj else ["retired_at"]

    def get_prepopulated_fields(
        self, request: HttpRequest, obj: Model | None = None
    ) -> dict[str, Any]:
        return {} if obj else self.prepopulated_fields

    def save_model(self, request: HttpRequest, obj: Product, form: Any, change: bool) -> None:
        try:
            if change:
                # a renamed product recomputes (ties are broken by name); see product_update
                product_update(
                    product=Product.all_objects.get(pk=obj.pk),
                    changes=form.changes(),
                    base_version=form.base_version(),
                    base=form.base(),
                )
            else:
                product_add(product=obj)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)
