from django.contrib import admin

from arena.admin_mixins import MarksArenaStaleOnDelete
from products.models import Product
from stories.services import product_add


@admin.register(Product)
class ProductAdmin(MarksArenaStaleOnDelete, admin.ModelAdmin):
    list_display = [
        "name",
        "arena",
        "slug",
        "tier",
        "position",
        "stars",
        "npm_weekly",
        "pypi_weekly",
    ]
    list_filter = ["arena", "tier"]
    search_fields = ["name", "slug"]
    ordering = ["arena", "position"]
    prepopulated_fields = {"slug": ["name"]}
    list_select_related = ["arena"]

    def save_model(self, request, obj, form, change):
        if change:
            obj.save()  # name, tier, popularity: nothing that moves a score
        else:
            product_add(product=obj)
