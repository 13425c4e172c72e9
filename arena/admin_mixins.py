from django.db import transaction

from arena.services import arena_mark_stale


class MarksArenaStaleOnDelete:
    """Deleting a product or a story moves its arena's scores: schedule the recomputation."""

    def delete_model(self, request, obj):
        arena_id = obj.arena_id
        with transaction.atomic():
            super().delete_model(request, obj)
            arena_mark_stale(arena_id=arena_id)

    def delete_queryset(self, request, queryset):
        arena_ids = set(queryset.values_list("arena_id", flat=True))
        with transaction.atomic():
            super().delete_queryset(request, queryset)
            for arena_id in arena_ids:
                arena_mark_stale(arena_id=arena_id)
