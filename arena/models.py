from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.urls import reverse

from arena.scoring.tally import verified_share
from core.models import VersionedRecord
from core.text import SLUG_PATTERN, arena_slugify, validate_one_line
from core.uris import URIField

GIVE_UP_AFTER = 3  # failed recomputes of one change before the sweep stops sending it
SETTLE_LISTED = 20  # a close call's settle cells stored (and shown); the rest are only counted
CALL_ORDER = ("leader__score__rank", "trailer__score__rank")  # close calls in leaderboard order
PAGE_NAME_HELP = "The name the imported pages use (how they find it after an admin renames it)"


class ArenaQuerySet(models.QuerySet):
    def stale(self) -> ArenaQuerySet:
        """The freshness rule: never computed, behind a change, or still marked stale."""
        return self.filter(
            Q(scores_computed_at__isnull=True)
            | Q(computed_seq__lt=F("change_seq"))
            | Q(scores_stale_since__isnull=False)
        )

    def given_up(self) -> ArenaQuerySet:
        """Stale arenas whose change failed to recompute ``GIVE_UP_AFTER`` times: not swept."""
        failed = Q(recompute_failed_seq=F("change_seq"), recompute_failures__gte=GIVE_UP_AFTER)
        return self.stale().filter(failed)


class Arena(VersionedRecord):
    """A product category with its products, stories and stored scores."""

    slug = models.SlugField(max_length=120, unique=True)
    name = models.CharField(max_length=200, unique=True, validators=[validate_one_line])
    description = models.TextField(blank=True)
    updated = models.DateField(
        null=True, blank=True, help_text="When the arena's verdicts were last updated"
    )
    evidence_as_of = models.DateField(null=True, blank=True)
    scores_computed_at = models.DateTimeField(null=True, blank=True)
    scores_stale_since = models.DateTimeField(null=True, blank=True)
    change_seq = models.PositiveBigIntegerField(
        default=0, help_text="Bumped by every score-moving change"
    )
    computed_seq = models.PositiveBigIntegerField(
        default=0, help_text="change_seq the stored scores reflect"
    )
    recompute_enqueued_at = models.DateTimeField(
        null=True, blank=True, help_text="A recompute task waits in the queue (debounce)"
    )
    content_version = models.PositiveBigIntegerField(
        default=0, help_text="Bumped by every change to what the arena's pages show"
    )
    recompute_failures = models.PositiveSmallIntegerField(
        default=0, help_text="Recomputes of change recompute_failed_seq that failed in a row"
    )
    recompute_failed_seq = models.PositiveBigIntegerField(default=0)

    objects = ArenaQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(slug__regex=SLUG_PATTERN), name="arena_slug_valid")
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("arena-detail", args=[self.slug])

    @property
    def scores_pending(self) -> bool:
        return self.scores_stale_since is not None


class Category(VersionedRecord):
    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="categories")
    name = models.CharField(max_length=120, validators=[validate_one_line])
    blurb = models.CharField(max_length=300, blank=True)
    page_name = models.CharField(max_length=200, blank=True, help_text=PAGE_NAME_HELP)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["arena", "position"]
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(
                fields=["arena", "name"], name="category_unique_name_per_arena"
            ),
            models.UniqueConstraint(
                fields=["arena", "position"], name="category_unique_position_per_arena"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def slug(self) -> str:
        """The matrix's ``category`` filter value."""
        return arena_slugify(self.name)


class SubGroup(VersionedRecord):
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="subgroups")
    name = models.CharField(max_length=120, validators=[validate_one_line])
    page_name = models.CharField(max_length=200, blank=True, help_text=PAGE_NAME_HELP)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["category", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["category", "name"], name="subgroup_unique_name_per_category"
            ),
            models.UniqueConstraint(
                fields=["category", "position"], name="subgroup_unique_position_per_category"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Persona(VersionedRecord):
    """A kind of user (``backend-developer``); ``label`` is how head-to-head pages name it."""

    slug = models.SlugField(max_length=80, unique=True)
    label = models.CharField(max_length=120, validators=[validate_one_line])
    page_slug = models.CharField(
        max_length=80, blank=True, help_text=PAGE_NAME_HELP.replace("name", "slug", 1)
    )

    class Meta:
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(condition=Q(slug__regex=SLUG_PATTERN), name="persona_slug_valid")
        ]

    def __str__(self) -> str:
        return self.slug


class AdjacentArena(VersionedRecord):
    """A link to a category often shopped together with this one."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="adjacent")
    name = models.CharField(max_length=200, validators=[validate_one_line])
    product_count = models.PositiveIntegerField()
    leader = models.CharField(max_length=120, validators=[validate_one_line])
    shares = models.CharField(max_length=200, blank=True, help_text="Category the two arenas share")
    page_name = models.CharField(max_length=200, blank=True, help_text=PAGE_NAME_HELP)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["arena", "position"]
        verbose_name_plural = "adjacent arenas"
        constraints = [
            models.UniqueConstraint(fields=["arena", "name"], name="adjacent_unique_name_per_arena")
        ]

    def __str__(self) -> str:
        return self.name


class ProductScore(models.Model):
    """Stored scores of one product in one arena, written only by ``arena_recompute_scores``."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="scores")
    product = models.OneToOneField(
        "products.Product", on_delete=models.CASCADE, related_name="score"
    )
    rank = models.PositiveIntegerField()
    vs = models.ForeignKey(
        "products.Product", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    pa_score = models.PositiveSmallIntegerField(null=True)
    category_scores = models.JSONField(default=dict)  # {category name: score or null}
    persona_scores = models.JSONField(default=dict)  # {persona slug: score or null}
    verified = models.PositiveIntegerField()
    with_evidence = models.PositiveIntegerField()
    disputed = models.PositiveIntegerField()
    contradicted = models.PositiveIntegerField()
    # the counts of ``scoring.Tally`` (docs/scoring.md, "Integrity")
    upheld = models.PositiveIntegerField()
    upheld_in_favour = models.PositiveIntegerField(default=0)
    favour_credit = models.PositiveIntegerField(default=0)
    upheld_unevidenced = models.PositiveIntegerField(default=0)
    integrity = models.PositiveSmallIntegerField(null=True)
    confidence = models.CharField(max_length=1)
    # Σ w·q and Σ 10·w: with the counts, the tally the review queue previews an uphold from
    weighted_quality = models.PositiveIntegerField(null=True)
    weighted_max = models.PositiveIntegerField(null=True)
    parts = models.JSONField(default=list)  # [``scoring.Part``, …]: weighting without reading cells
    pa_low = models.PositiveSmallIntegerField(null=True)  # the PA Score's range (``score_range``)
    pa_high = models.PositiveSmallIntegerField(null=True)
    rank_best = models.PositiveIntegerField(null=True)  # the ranks it allows (``rank_ranges``)
    rank_worst = models.PositiveIntegerField(null=True)
    published_evidence = models.PositiveIntegerField(default=0)
    judged = models.PositiveIntegerField(default=0)
    persona_ranges = models.JSONField(default=dict)  # {persona slug: [low, high] or null}
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["arena", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["arena", "rank"], name="score_unique_rank_per_arena"),
            models.CheckConstraint(
                condition=Q(pa_score__isnull=True) | Q(pa_score__lte=100), name="score_pa_0_100"
            ),
            models.CheckConstraint(
                condition=Q(integrity__isnull=True) | Q(integrity__lte=100),
                name="score_integrity_0_100",
            ),
            models.CheckConstraint(
                condition=Q(verified__lte=models.F("with_evidence")), name="score_v_le_e"
            ),
            models.CheckConstraint(
                condition=Q(pa_low__isnull=True, pa_high__isnull=True)
                | Q(
                    pa_score__isnull=False,
                    pa_low__isnull=False,
                    pa_high__isnull=False,
                    pa_low__lte=models.F("pa_score"),
                    pa_high__gte=models.F("pa_score"),
                    pa_high__lte=100,
                ),
                name="score_range_contains_pa",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.rank} {self.product_id}: PA {self.pa_score}"

    # what ``ranking.order_by`` reads beside the fields: stored rows are ranked as results are
    @property
    def name(self) -> str:
        return self.product.name

    @property
    def verified_share(self) -> float:
        return verified_share(self.verified, self.with_evidence)

    @property
    def pa_range(self) -> tuple[int, int] | None:
        return None if self.pa_low is None or self.pa_high is None else (self.pa_low, self.pa_high)


class CloseCall(models.Model):
    """A pair too close to call and its settle set, written only by ``arena_recompute_scores``."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="close_calls")
    leader = models.ForeignKey("products.Product", on_delete=models.CASCADE, related_name="+")
    trailer = models.ForeignKey("products.Product", on_delete=models.CASCADE, related_name="+")
    settle_count = models.PositiveIntegerField()  # 0: equal scores, no verification settles it
    exact = models.BooleanField()  # False: "at most" settle_count (the greedy bound)

    def __str__(self) -> str:
        return f"{self.leader_id} vs {self.trailer_id}: {self.settle_count}"


class ProductSide(models.Model):
    """What verifying each unverified cell of a product moves its range (``certainty.Side``),
    kept so that the recompute redoes only the products whose side is stale or missing."""

    product = models.OneToOneField("products.Product", models.CASCADE, related_name="side")
    raise_low = models.JSONField(default=list)  # [[gain, …], [story id, …], [cell id, …]], by gain
    cut_high = models.JSONField(default=list)
    stale = models.BooleanField(default=False)  # a cell of the product changed since

    def __str__(self) -> str:
        return f"{self.product_id}: {len(self.raise_low)} up, {len(self.cut_high)} down"


class SettleCell(models.Model):
    """One of the first ``SETTLE_LISTED`` cells of a close call's settle set, largest gain first."""

    call = models.ForeignKey(CloseCall, on_delete=models.CASCADE, related_name="cells")
    cell = models.ForeignKey("stories.Cell", on_delete=models.CASCADE, related_name="settles")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["call", "position"]
        constraints = [
            models.UniqueConstraint(fields=["call", "position"], name="settle_cell_position")
        ]

    def __str__(self) -> str:
        return f"{self.call_id}: {self.cell_id}"


class PersonaResult(models.Model):
    """Stored "best by user type" row for one persona of one arena."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="persona_results")
    persona = models.ForeignKey(Persona, on_delete=models.CASCADE, related_name="+")
    story_count = models.PositiveIntegerField()
    winner = models.ForeignKey(
        "products.Product", null=True, on_delete=models.CASCADE, related_name="+"
    )
    winner_score = models.PositiveSmallIntegerField(null=True)
    runner_up = models.ForeignKey(
        "products.Product", null=True, on_delete=models.CASCADE, related_name="+"
    )
    runner_up_score = models.PositiveSmallIntegerField(null=True)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["arena", "position"]
        constraints = [
            models.UniqueConstraint(fields=["arena", "persona"], name="persona_result_unique"),
        ]

    def __str__(self) -> str:
        return f"Best for {self.persona_id}: {self.winner_id}"


class Source(models.Model):
    """What an evidence id such as ``inngest-docs-7`` refers to (none: shown unresolved)."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="sources")
    key = models.CharField(max_length=80, help_text="The id the evidence cites, e.g. docs-21")
    title = models.CharField(max_length=300, blank=True, validators=[validate_one_line])
    url = URIField(max_length=500, blank=True)
    accessed = models.DateField(null=True, blank=True, help_text="When the source was read")

    class Meta:
        ordering = ["arena", "key"]
        constraints = [
            models.UniqueConstraint(fields=["arena", "key"], name="source_unique_key_per_arena"),
        ]

    def __str__(self) -> str:
        return self.key


class CacheEpoch(models.Model):
    """The page cache's namespace (pk 1), renewed by a restore so nothing older is served."""

    value = models.CharField(max_length=32)

    def __str__(self) -> str:
        return self.value
