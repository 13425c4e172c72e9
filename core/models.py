"""The abstract records the domain apps build on (no tables of their own)."""

from __future__ import annotations

from django.db import models

from core.edits import edited_since_import


class ActiveManager[M: models.Model](models.Manager[M]):
    """``objects``: what the public pages and the scores see, the rows that are not retired.
    ``all_objects`` (the default manager: the admin, validation, related objects) has every row."""

    def get_queryset(self) -> models.QuerySet[M]:
        return super().get_queryset().filter(retired_at__isnull=True)


class VersionedRecord(models.Model):
    """A row edited in the admin under a version (no lost update: a stale form is refused or
    merged, ``core.conflicts.versioned_update``), whose ``edited_at`` against ``imported_at`` tells a
    re-import which admin edits no import has written over (the server's own times). Only admin
    and editor writes set ``edited_at``; only an import sets ``imported_at``."""

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
        """An edit no import has taken up yet: a re-import keeps it and reports it."""
        return edited_since_import(self.edited_at, self.imported_at)


class EditableRecord(VersionedRecord):
    """A story or a product: versioned, kept when a re-import is older than the edit, and retired,
    never deleted, when it leaves its arena (its cells carry flags, decisions and the public
    record)."""

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
