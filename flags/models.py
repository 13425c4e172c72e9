import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from core.uris import URIField
from stories.values import QUALITY_MAX, CellValue, Verdict


class Reason(models.TextChoices):
    WRONG_VERDICT = "wrong_verdict", "Wrong verdict"
    WRONG_QUALITY = "wrong_quality", "Wrong quality"
    OUTDATED_EVIDENCE = "outdated_evidence", "Evidence outdated or broken"
    MISSING_EVIDENCE = "missing_evidence", "Missing evidence"
    OTHER = "other", "Other"


class Status(models.TextChoices):
    PENDING = "pending", "pending"
    UPHELD = "upheld", "upheld"
    REJECTED = "rejected", "rejected"
    DUPLICATE = "duplicate", "duplicate"


def new_token() -> str:
    return secrets.token_urlsafe(24)


class ReviewItem(models.Model):
    """One entry of the moderators' queue: every pending flag on one cell, resolved together once."""

    cell = models.ForeignKey("stories.Cell", on_delete=models.PROTECT, related_name="review_items")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    public_note = models.TextField(blank=True)
    change = models.ForeignKey(
        "stories.CellChange",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="review_items",
    )
    version = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["cell"],
                condition=Q(status=Status.PENDING),
                name="one_pending_review_item_per_cell",
            ),
            models.CheckConstraint(
                condition=Q(status=Status.PENDING, resolved_at__isnull=True)
                | (~Q(status=Status.PENDING) & Q(resolved_at__isnull=False)),
                name="review_item_resolved_iff_not_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"Review of cell {self.cell_id} ({self.status})"


class FlagClient(models.Model):
    """A client that filed flags lately: the row locked while its rate limit is counted."""

    client_hash = models.CharField(max_length=64, primary_key=True)
    last_seen = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"Flag client {self.client_hash[:12]}"


class Flag(models.Model):
    """One visitor's report that a cell's verdict is wrong."""

    item = models.ForeignKey(ReviewItem, on_delete=models.PROTECT, related_name="flags")
    cell = models.ForeignKey("stories.Cell", on_delete=models.PROTECT, related_name="flags")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    proposed_verdict = models.CharField(max_length=10, choices=Verdict.choices, blank=True)
    proposed_quality = models.PositiveSmallIntegerField(null=True, blank=True)
    explanation = models.TextField()
    source_url = URIField(max_length=500, blank=True)
    email = models.EmailField(blank=True, help_text="Never shown publicly")
    # the reporter works for or with the product's vendor: "filed by the vendor" in public
    affiliated = models.BooleanField(default=False)
    client_hash = models.CharField(max_length=64, help_text="Salted hash of the client address")
    token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(reason__in=[r.value for r in Reason]), name="flag_reason_valid"
            ),
            models.CheckConstraint(
                condition=Q(proposed_quality__isnull=True) | Q(proposed_quality__lte=QUALITY_MAX),
                name="flag_proposed_quality_0_10",
            ),
            models.CheckConstraint(
                condition=Q(proposed_verdict="") | Q(proposed_verdict__in=Verdict.values),
                name="flag_proposed_verdict_valid",
            ),
            # one pending item per cell: one pending flag per client per cell, though requests race
            models.UniqueConstraint(
                fields=["item", "client_hash"], name="flag_one_per_client_per_item"
            ),
        ]
        indexes = [
            # the rate limit counts a client's latest flags: a range scan of this index
            models.Index(fields=["client_hash", "created_at"], name="flag_client_recent")
        ]

    def __str__(self) -> str:
        return f"Flag {self.pk} on cell {self.cell_id}"

    def get_absolute_url(self) -> str:
        return reverse("flag-status", args=[self.token])

    def proposal(self, cell: CellValue) -> CellValue | None:
        """What the flag proposes, completed from ``cell`` (a contradiction is kept, to report)."""
        given = {"verdict"} if self.proposed_verdict else set()
        if self.proposed_quality is not None:
            given.add("quality")
        if not given:
            return None
        value = CellValue(self.proposed_verdict or cell.verdict, None, self.proposed_quality)
        return value.completed_from(cell, given=given)

    @property
    def proposal_label(self) -> str:
        """``partial 5/10``, ``full``, ``verdict unchanged, 5/10`` or "": as sent, not completed."""
        if self.proposed_verdict:
            return CellValue(self.proposed_verdict, None, self.proposed_quality).label()
        if self.proposed_quality is None:
            return ""
        # any verdict that takes a quality writes it the same way
        quality = CellValue(Verdict.PARTIAL, None, self.proposed_quality).quality_text
        return f"verdict unchanged, {quality}"


class ModeratorAction(models.Model):
    """Audit trail: every moderator decision, successful or not repeated."""

    class Action(models.TextChoices):
        UPHOLD = "uphold", "upheld"
        REJECT = "reject", "rejected"
        DUPLICATE = "duplicate", "marked duplicate"

    item = models.ForeignKey(ReviewItem, on_delete=models.PROTECT, related_name="actions")
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=10, choices=Action.choices)
    note = models.TextField(blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.moderator} {self.get_action_display()} item {self.item_id}"


class Notice(models.Model):
    """One mail to send (the outbox), written with the flag or decision it tells of. It keeps no
    address: an unsubscribe or an erasure stops it."""

    class Kind(models.TextChoices):
        RECEIVED = "received", "flag received (to the reporter)"
        DECIDED = "decided", "flag decided (to the reporter)"
        NEW_FLAG = "new_flag", "new flag (to the moderators)"

    class State(models.TextChoices):
        PENDING = "pending", "pending"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"
        SKIPPED = "skipped", "skipped"  # nobody to send it to: unsubscribed, or no address

    kind = models.CharField(max_length=10, choices=Kind.choices)
    flag = models.ForeignKey(Flag, on_delete=models.CASCADE, related_name="notices")
    status = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    created_at = models.DateTimeField()
    # not tried before this by the sweep: the first attempt's task's, then each retry's backoff
    next_attempt_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            # the sweep reads the pending notices that are due
            models.Index(fields=["status", "next_attempt_at"], name="notice_due")
        ]

    def __str__(self) -> str:
        return f"Notice {self.pk} ({self.kind}, {self.status})"
