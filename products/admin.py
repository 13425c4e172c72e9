from django.contrib import admin
from django.db import transaction

from arena.admin_mixins import MarksArenaStaleOnDelete
from arena.services import arena_mark_stale
from products.models import Product
from stories.models import Cell, Story


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
        with transaction.atomic():
            obj.save()
            if not change:
                # a new product gets an (n/a) cell for every story, to be judged
                Cell.objects.bulk_create(
                    Cell(story=s, product=obj, verdict="n/a")
                    for s in Story.objects.filter(arena=obj.arena)
                )
                arena_mark_stale(arena_id=obj.arena_id)
