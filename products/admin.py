"""The admin of products: through ``products.services`` (versioned), retired, never deleted."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin

from core.admin_base import RecordAdmin
from core.forms import VersionedForm
from products.models import Product
from products.services import product_add, product_update


class LanguagesField(forms.Field):
    """Languages and SDKs as one line, comma-separated (stored as a list)."""

    widget = forms.TextInput

    def prepare_value(self, value: Any) -> Any:
        return ", ".join(value) if isinstance(value, list) else value

    def to_python(self, value: Any) -> list[str]:
        if isinstance(value, list):
            return value
        names = [n.strip() for n in str(value or "").split(",")]
        return list(dict.fromkeys(n for n in names if n))


class ProductForm(VersionedForm):
    what = "product"
    languages = LanguagesField(
        required=False,
        help_text="Languages and SDKs, comma-separated; empty when nobody stated them",
    )

    class Meta:
        model = Product
        exclude = ["version", "edited_at", "imported_at", "retired_at", "page_name"]


@admin.register(Product)
class ProductAdmin(RecordAdmin):
    form = ProductForm
    add_service, update_service = product_add, product_update
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
    list_filter = ["arena", "tier", "hosting", "retired_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    list_select_related = ["arena"]
