from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Case, Exists, OuterRef, Q, Value, When
from django.urls import reverse

from core.models import EditableRecord, VersionedRecord
from core.text import validate_one_line
from core.uris import URIField
from stories.values import (
    EVIDENCED,
    JUDGEMENT_FIELDS,
    QUALITY_MAX,
    Backing,
    CellValue,
    Direction,
    Proof,
    Verdict,
    correction_direction,
)


def judgement_constraints(prefix: str = "cell", fields: str = "") -> list[models.CheckConstraint]:
    """``CellValue.errors()``'s rules as constraints ``{prefix}_…`` on ``{fields}verdict`` …"""
    verdict, proof, quality = (f"{fields}{name}" for name in JUDGEMENT_FIELDS)
    na, none = Verdict.NA.value, Verdict.NONE.value
    no_proof = [v.value for v in Verdict if v not in EVIDENCED]
    evidenced = [v.value for v in Verdict if v in EVIDENCED]
    rules = {
        "verdict_valid": Q((f"{verdict}__in", Verdict.values)),
        "proof_valid": Q((f"{proof}__isnull", True)) | Q((f"{proof}__in", Proof.values)),
        "quality_0_10": Q((f"{quality}__isnull", True))
        | Q(**{f"{quality}__gte": 0, f"{quality}__lte": QUALITY_MAX}),
        # n/a has no quality; every other verdict has one
        "quality_iff_applicable": Q((verdict, na), (f"{quality}__isnull", True))
        | (~Q((verdict, na)) & Q((f"{quality}__isnull", False))),
        # none and n/a have no proof; the evidenced verdicts have one
        "proof_iff_evidenced": Q((f"{verdict}__in", no_proof), (f"{proof}__isnull", True))
        | Q((f"{verdict}__in", evidenced), (f"{proof}__isnull", False)),
        "none_has_quality_0": ~Q((verdict, none)) | Q((quality, 0)),
    }
    return [models.CheckConstraint(condition=c, name=f"{prefix}_{n}") for n, c in rules.items()]


class Story(EditableRecord):
    arena = models.ForeignKey("arena.Arena", on_delete=models.PROTECT, related_name="stories")
    category = models.ForeignKey("arena.Category", on_delete=models.PROTECT, related_name="stories")
    subgroup = models.ForeignKey(
        "arena.SubGroup", null=True, blank=True, on_delete=models.PROTECT, related_name="stories"
    )
    persona = models.ForeignKey("arena.Persona", on_delete=models.PROTECT, related_name="stories")
    text = models.CharField(max_length=500, validators=[validate_one_line])
    weight = models.PositiveSmallIntegerField(default=1)
    weight_published = models.BooleanField(
        default=True, help_text="False when no page gave the weight and the default was used"
    )
    position = models.PositiveIntegerField(help_text="Row order in the matrix")
    page_text = models.CharField(
        max_length=500, blank=True, help_text="The text the imported pages use (how they find it)"
    )

    class Meta(EditableRecord.Meta):
        ordering = ["arena", "position"]
        verbose_name_plural = "stories"
        constraints = [
            models.UniqueConstraint(fields=["arena", "text"], name="story_unique_text_per_arena"),
            models.UniqueConstraint(
                fields=["arena", "position"], name="story_unique_position_per_arena"
            ),
            models.CheckConstraint(
                condition=Q(weight__gte=1, weight__lte=3), name="story_weight_1_3"
            ),
        ]

    def __str__(self) -> str:
        return self.text

    def clean(self) -> None:
        """A story sits in a category of its own arena, and in a sub-group of that category."""
        if self.category_id and self.arena_id and self.category.arena_id != self.arena_id:
            raise ValidationError({"category": "Choose a category of this story's arena."})
        if self.subgroup and self.category_id and self.subgroup.category_id != self.category_id:
            raise ValidationError({"subgroup": "Choose a sub-group of the story's category."})

    def get_absolute_url(self) -> str:
        return reverse("story-detail", args=[self.arena.slug, self.pk])


class CellQuerySet(models.QuerySet):
    def on_pages(self) -> CellQuerySet:
        """The cells the public pages and the scores see: neither story nor product retired."""
        return self.filter(story__retired_at__isnull=True, product__retired_at__isnull=True)

    def with_backing(self) -> CellQuerySet:
        """Each cell with ``backing``: quotes, else a rationale, when its detail is published."""
        quoted = Exists(Evidence.objects.filter(cell_id=OuterRef("pk")))
        return self.annotate(
            backing=Case(
                When(~Q(detail_published=True), then=Value(Backing.NONE.value)),
                When(quoted, then=Value(Backing.QUOTES.value)),
                When(~Q(rationale__regex=r"^\s*$"), then=Value(Backing.RATIONALE.value)),
                default=Value(Backing.NONE.value),
                output_field=models.CharField(),
            )
        )


class Cell(VersionedRecord):
    """One product × one story: the judged verdict (a re-import keeps one edited since it wrote)."""

    story = models.ForeignKey(Story, on_delete=models.PROTECT, related_name="cells")
    product = models.ForeignKey("products.Product", on_delete=models.PROTECT, related_name="cells")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    proof = models.CharField(max_length=14, choices=Proof.choices, null=True, blank=True)
    quality = models.PositiveSmallIntegerField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    detail_published = models.BooleanField(
        default=False,
        help_text="Whether a head-to-head page published this cell's rationale and evidence",
    )
    detail_edited_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Last edit of the rationale in the admin (a re-import keeps it)",
    )
    rationale_predates = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The rationale was written before the upheld correction of this date",
    )
    rationale_rewritten_at = models.DateTimeField(
        null=True, blank=True, help_text="When an upheld correction rewrote the rationale"
    )
    evidence_as_of = models.DateField(
        null=True,
        blank=True,
        db_index=True,
        help_text="When the cell's evidence was last checked (its newest evidence or judgement)",
    )

    objects = CellQuerySet.as_manager()

    class Meta:
        ordering = ["story", "product__position"]
        constraints = [
            models.UniqueConstraint(fields=["story", "product"], name="cell_unique_product_story"),
            *judgement_constraints(),
            # a rewritten rationale predates only a correction made after it was rewritten
            models.CheckConstraint(
                condition=Q(rationale_predates__isnull=True)
                | Q(rationale_rewritten_at__isnull=True)
                | Q(rationale_predates__gt=models.F("rationale_rewritten_at")),
                name="cell_rationale_predates_after_rewrite",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.product_id}×{self.story_id}: {self.verdict}"

    def get_absolute_url(self) -> str:
        return reverse("cell-detail", args=[self.pk])

    def clean(self) -> None:
        """The judgement's rules as one message per field (the forms show them before a write)."""
        if errors := self.value.errors():
            raise ValidationError(errors)

    @property
    def value(self) -> CellValue:
        return CellValue.of(self)

    def last_change_note(self) -> str:
        """The last recorded change in one line, for a refused stale edit's message."""
        last = self.changes.select_related("changed_by").first()
        if last is None:
            return ""
        who = f" by {last.changed_by.get_username()}" if last.changed_by else ""
        note = f" (“{last.note}”)" if last.note else ""
        return (
            f"Last change: {last.get_kind_display()}{who} on {last.changed_at:%Y-%m-%d %H:%M} UTC, "
            f"{last.old_value.label()} → {last.new_value.label()}{note}."
        )


class Evidence(models.Model):
    cell = models.ForeignKey(Cell, on_delete=models.CASCADE, related_name="evidence")
    position = models.PositiveIntegerField()
    source = models.CharField(max_length=40, help_text="claimed-docs, github, community, probe, …")
    quote = models.TextField()
    url = URIField(max_length=500, blank=True, help_text="Where the quote can be checked")
    checked_on = models.DateField(
        null=True,
        blank=True,
        help_text="When the quote was last checked: the pages' Evidence-as-of date for imported "
        "evidence, the date of the edit or decision otherwise",
    )

    class Meta:
        ordering = ["cell", "position"]
        verbose_name_plural = "evidence"
        constraints = [
            models.UniqueConstraint(
                fields=["cell", "position"], name="evidence_unique_position_per_cell"
            )
        ]

    def __str__(self) -> str:
        return f"[{self.source}] {self.quote[:60]}"


class StaleCell(Cell):
    """The moderators' "stale evidence" view of cells (an admin changelist)."""

    class Meta:
        proxy = True
        verbose_name = "stale evidence"
        verbose_name_plural = "stale evidence"


class CellChange(models.Model):
    """The public record of one change of a cell's verdict, proof or quality."""

    class Kind(models.TextChoices):
        ADMIN = "admin", "direct edit"
        FLAG = "flag", "upheld flag"
        IMPORT = "import", "import"
        # an import that replaced a moderated value because it was told to (--overwrite-moderated)
        IMPORT_OVERRIDE = "override", "import over a moderated value"

    cell = models.ForeignKey(Cell, on_delete=models.PROTECT, related_name="changes")
    kind = models.CharField(max_length=10, choices=Kind.choices)  # append-only: see migrations
    old_verdict = models.CharField(max_length=10, choices=Verdict.choices)
    old_proof = models.CharField(max_length=14, choices=Proof.choices, null=True, blank=True)
    old_quality = models.PositiveSmallIntegerField(null=True, blank=True)
    new_verdict = models.CharField(max_length=10, choices=Verdict.choices)
    new_proof = models.CharField(max_length=14, choices=Proof.choices, null=True, blank=True)
    new_quality = models.PositiveSmallIntegerField(null=True, blank=True)
    # who changed it stays on record: a user who made a change is deactivated, never deleted
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    changed_at = models.DateTimeField()
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        indexes = [models.Index(fields=["-changed_at"], name="cellchange_recent")]
        # both sides of a change are judgements a cell could hold
        constraints = [
            *judgement_constraints("cellchange_old", fields="old_"),
            *judgement_constraints("cellchange_new", fields="new_"),
        ]

    def __str__(self) -> str:
        return f"{self.old_verdict} → {self.new_verdict}"

    @property
    def old_value(self) -> CellValue:
        return CellValue.of(self, "old_")

    @property
    def new_value(self) -> CellValue:
        return CellValue.of(self, "new_")

    @property
    def direction(self) -> Direction | None:
        """Which way an upheld flag's correction went; None for other kinds of change."""
        if self.kind != self.Kind.FLAG:
            return None
        return correction_direction(
            self.old_verdict, self.old_quality, self.new_verdict, self.new_quality
        )
