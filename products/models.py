from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse

from core.models import EditableRecord
from core.text import PRODUCT_SLUG_PATTERN, validate_one_line, validate_product_slug
from core.uris import URIField
from products.facts import licence_problem


class Hosting(models.TextChoices):
    SELF_HOSTED = "self-hosted", "self-hosted"
    MANAGED = "managed", "managed"
    BOTH = "both", "self-hosted and managed"


class Product(EditableRecord):
    """A product judged in one arena (a column of the matrix)."""

    arena = models.ForeignKey("arena.Arena", on_delete=models.PROTECT, related_name="products")
    name = models.CharField(max_length=120, validators=[validate_one_line])
    # no word "vs" between hyphens: /vs/<a>-vs-<b>/ must name one pair (core.text.slug_problem)
    slug = models.SlugField(max_length=120, validators=[validate_product_slug])
    tier = models.CharField(max_length=40, blank=True)
    position = models.PositiveIntegerField(help_text="Column order in the matrix")
    stars = models.PositiveBigIntegerField(null=True, blank=True, help_text="GitHub stars")
    stars_growth = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Stars gained per year"
    )
    npm_weekly = models.PositiveBigIntegerField(null=True, blank=True)
    pypi_weekly = models.PositiveBigIntegerField(null=True, blank=True)
    popularity_as_of = models.DateField(null=True, blank=True)
    # What the product is, as stated by the pages or a file; blank or null: unknown (never guessed).
    website = URIField(max_length=500, blank=True)
    repository = URIField(max_length=500, blank=True)
    documentation = URIField(max_length=500, blank=True)
    licence = models.CharField(max_length=100, blank=True, help_text="An SPDX identifier")
    languages = models.JSONField(
        default=list, blank=True, help_text="Languages and SDKs, as a list of names"
    )
    hosting = models.CharField(max_length=12, choices=Hosting.choices, blank=True)
    pricing = models.CharField(max_length=200, blank=True, help_text="The pricing model")
    first_release = models.DateField(null=True, blank=True)
    latest_release = models.DateField(null=True, blank=True)
    latest_version = models.CharField(max_length=60, blank=True)
    page_name = models.CharField(
        max_length=120, blank=True, help_text="The name the imported pages use (how they find it)"
    )

    class Meta(EditableRecord.Meta):
        ordering = ["arena", "position"]
        constraints = [
            models.UniqueConstraint(fields=["arena", "slug"], name="product_unique_slug_per_arena"),
            models.UniqueConstraint(fields=["arena", "name"], name="product_unique_name_per_arena"),
            models.UniqueConstraint(
                fields=["arena", "position"], name="product_unique_position_per_arena"
            ),
            models.CheckConstraint(
                condition=Q(slug__regex=PRODUCT_SLUG_PATTERN), name="product_slug_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if problem := licence_problem(self.licence):
            named = problem.startswith("'")  # (else the problem is with the whole text)
            raise ValidationError({"licence": problem if named else f"{self.licence!r} {problem}"})

    def get_absolute_url(self) -> str:
        return reverse("product-detail", args=[self.arena.slug, self.slug])
