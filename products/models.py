from django.db import models
from django.db.models import Q
from django.urls import reverse

from arena.models import EditableRecord
from arena.text import PRODUCT_SLUG_PATTERN, validate_product_slug


class Product(EditableRecord):
    """A product judged in one arena (a column of the matrix)."""

    arena = models.ForeignKey("arena.Arena", on_delete=models.PROTECT, related_name="products")
    name = models.CharField(max_length=120)
    # no word "vs" between hyphens: /vs/<a>-vs-<b>/ must name one pair (arena.text.slug_problem)
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

    def get_absolute_url(self) -> str:
        return reverse("product-detail", args=[self.arena.slug, self.slug])
