"""The abstract records the domain apps build on (no tables of their own)."""

from __future__ import annotations

from django.db import models


class ActiveManager[M: models.Model](models.Manager[M]):
    """The rows that are not retired (``all_objects``, the default, has every row)."""

    def get_queryset(self) -> models.QuerySet[M]:
        return super().get_queryset().filter(retired_at__isnull=True)


class VersionedRecord(models.Model):
    """A row edited under a version; ``edited_at`` vs ``imported_at``: edits no import undid."""

    version = models.PositiveIntegerField(default=1, help_text="Bumped on every edit")
    edited_at = models.DateTimeField(
        null=True, blank=True, help_text="Last edit in the admin (a re-import keeps it)"
    )
    imported_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When an import last wrote over an edit (an edit after it is kept by a re-import)",
    )

    class Meta:
        abstract = True

    @property
    def edited_since_import(self) -> bool:
        """Edited after an import last wrote it (server times): a re-import keeps it, and says so."""
        return self.edited_at is not None and (
            self.imported_at is None or self.edited_at > self.imported_at
        )


class EditableRecord(VersionedRecord):
    """A story or a product: versioned, and retired, never deleted."""

    retired_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it left the arena (hidden from pages and scores, kept on record)",
    )

    arena_id: int  # each concrete record has its arena (a foreign key of its own)

    objects = ActiveManager()
    all_objects = models.Manager()  # noqa: DJ012 (managers, not fields)

    class Meta(VersionedRecord.Meta):
        abstract = True
        base_manager_name = "all_objects"
        default_manager_name = "all_objects"
