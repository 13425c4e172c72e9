"""The read endpoints' JSON (docs/contract.md) and the fields it is written with."""

from collections.abc import Iterable, Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from arena.scoring.rounds import DRAWN
from arena.selectors.calls import first_leads
from arena.selectors.export import BLANK_IS_NULL, PRODUCT_FIELDS
from products.models import Product
from stories.values import Backing


class ProductSlugsField(serializers.ListField):
    child = serializers.CharField()

    def to_representation(self, products: Iterable[Any]) -> list[str]:
        return [p.slug for p in products]


class ByProductField(serializers.DictField):
    def to_representation(self, mapping: Mapping[Any, Any]) -> dict[str, Any]:
        return {p.slug: self.child.to_representation(v) for p, v in mapping.items()}


class WinnerField(serializers.CharField):
    """The winner's slug, or ``"drawn"``."""

    def get_attribute(self, instance: Any) -> str:
        winner: Any = super().get_attribute(instance)
        return DRAWN if winner is None else winner.slug


class ScoreRangeField(serializers.ListField):
    """``[low, high]`` of a score (or ``[best, worst]`` of a rank: ``low=1, high=None``), or null."""

    def __init__(self, low: int = 0, high: int | None = 100, **kwargs: Any) -> None:
        child = serializers.IntegerField(min_value=low, max_value=high)
        super().__init__(child=child, min_length=2, max_length=2, allow_null=True, **kwargs)

    def to_representation(self, data: Any) -> list[int]:
        return [int(v) for v in data]  # (DRF writes a null without asking its field)


class ScoresField(serializers.DictField):
    child = serializers.IntegerField(allow_null=True)


class CallSerializer(serializers.Serializer):
    leader = serializers.CharField(
        allow_null=True,
        help_text="The product that leads by the one rule (its lowest possible PA Score above "
        "the other's highest; with several, above every other's); null: too close to call.",
    )
    close = serializers.BooleanField(help_text="True when it is too close to call.")


@extend_schema_field(CallSerializer)
class CallField(serializers.Field):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, cmp: Any) -> dict[str, Any]:
        return {"leader": cmp.leader.slug if cmp.leader else None, "close": cmp.leader is None}


class ProductRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class ProductSerializer(serializers.ModelSerializer):
    languages = serializers.ListField(child=serializers.CharField(), help_text="And SDKs.")

    class Meta:
        model = Product
        fields = PRODUCT_FIELDS
        read_only_fields = PRODUCT_FIELDS
        extra_kwargs = {f: {"allow_null": True} for f in BLANK_IS_NULL & set(PRODUCT_FIELDS)}

    def to_representation(self, product: Any) -> Any:
        # a fact stored blank is one nobody stated: null, as the open-data export writes
        data = super().to_representation(product)
        return {k: None if v == "" and self.fields[k].allow_null else v for k, v in data.items()}


class ArenaListSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    product_count = serializers.IntegerField()
    story_count = serializers.IntegerField()
    leader = serializers.SerializerMethodField(
        help_text="The first of the published ranking (whether it leads the second: `call`)."
    )
    call = serializers.SerializerMethodField(
        help_text="Whether the first leads the second by the one rule (its lowest possible PA "
        "Score above the second's highest): `leader` its slug, else null and `close`."
    )
    updated = serializers.DateField(allow_null=True)
    scores_computed_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(source="get_absolute_url")

    @extend_schema_field(ProductRefSerializer(allow_null=True))
    def get_leader(self, arena: Any) -> Any:
        return {"slug": arena.leader_slug, "name": arena.leader_name} if arena.leader_slug else None

    @extend_schema_field(CallSerializer())
    def get_call(self, arena: Any) -> Any:
        leads = first_leads(arena)  # nothing scored: no leader, and nothing close either
        leader = arena.leader_slug if leads else None
        return {"leader": leader, "close": bool(arena.leader_slug) and not leads}


@extend_schema_serializer(many=False)  # (the list action answers one page, not a list of them)
class ArenaPageSerializer(serializers.Serializer):
    """A page of the arenas (``?page=N``), by name."""

    count = serializers.IntegerField(help_text="How many arenas in all.")
    next = serializers.URLField(allow_null=True, help_text="The next page, null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The page before, null first.")
    results = ArenaListSerializer(many=True)


class LeaderboardSerializer(serializers.ListSerializer):
    """Rows ranked by a caller's weights carry their place there as ``rank``."""

    def to_representation(self, data: Any) -> Any:
        rows = super().to_representation(data)
        return [
            {**row, "rank": place} if "published_rank" in row else row
            for place, row in enumerate(rows, start=1)
        ]


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        help_text="The row's place: in the published ranking, or with `?weights=` in yours."
    )
    product = ProductRefSerializer()
    vs = serializers.SerializerMethodField()
    pa_score = serializers.IntegerField(allow_null=True)
    category_scores = ScoresField()
    persona_scores = ScoresField()
    verified = serializers.IntegerField()
    with_evidence = serializers.IntegerField()
    disputed = serializers.IntegerField()
    integrity = serializers.IntegerField(allow_null=True)
    confidence = serializers.CharField()
    upheld_in_favour = serializers.IntegerField()
    pa_range = ScoreRangeField(help_text="The PA Score's range [low, high]; null with no score.")
    published_evidence = serializers.IntegerField(
        help_text="Judged cells whose backing the pages publish (a quote or a rationale).",
    )
    judged = serializers.IntegerField(
        help_text="Judged (applicable: not n/a) cells; the evidence share is "
        "published_evidence/judged.",
    )
    rank_range = serializers.SerializerMethodField(
        help_text="The published ranks the product could take if its unverified cells turned out "
        "either way, `[best, worst]` (null: not computed yet)."
    )
    personal_score = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="With `?weights=`: the PA Score's formula with those weights (null: nothing "
        "weighs).",
    )
    personal_range = ScoreRangeField(
        required=False, help_text="With `?weights=`: the range of `personal_score`."
    )
    published_rank = serializers.IntegerField(
        source="rank",
        required=False,
        help_text="With `?weights=`: the row's rank in the published ranking.",
    )

    WEIGHTED = ("personal_score", "personal_range", "published_rank")

    class Meta:
        list_serializer_class = LeaderboardSerializer

    def to_representation(self, row: Any) -> Any:
        # a row not ranked by a caller's weights leaves them out (not written as null)
        data = super().to_representation(row)
        weighted = hasattr(row, "personal_score")
        return data if weighted else {k: v for k, v in data.items() if k not in self.WEIGHTED}

    def get_vs(self, row: Any) -> str | None:
        vs = getattr(row, "published_vs", row.vs)  # the stored partner, in any order shown
        return vs.slug if vs is not None else None

    @extend_schema_field(ScoreRangeField(low=1, high=None))
    def get_rank_range(self, row: Any) -> list[int] | None:
        return None if row.rank_worst is None else [row.rank_best, row.rank_worst]


class PersonaScoredSerializer(serializers.Serializer):
    product = serializers.CharField(source="product.slug")
    name = serializers.CharField(source="product.name")
    score = serializers.IntegerField(allow_null=True)
    range = ScoreRangeField(
        help_text="The product's range over this user type's stories (null: none stored)."
    )


class PersonaResultSerializer(serializers.Serializer):
    persona = serializers.CharField(source="persona.slug")
    # (a field named ``label``: mypy reads it as the ``Field.label`` the metaclass moves it from)
    label = serializers.CharField(source="persona.label")  # type: ignore[assignment]
    story_count = serializers.IntegerField()
    winner = serializers.SerializerMethodField()
    runner_up = serializers.SerializerMethodField()

    def _scored(self, obj: Any, product: Product | None, score: int | None) -> Any:
        if product is None:
            return None
        # its range over this user type: the one stored on its leaderboard row
        rows: Any = self.root.instance["leaderboard"]  # type: ignore[index]
        ranges = next((r.persona_ranges for r in rows if r.product_id == product.pk), None)
        rng = (ranges or {}).get(obj.persona.slug)
        return PersonaScoredSerializer({"product": product, "score": score, "range": rng}).data

    @extend_schema_field(PersonaScoredSerializer(allow_null=True))
    def get_winner(self, obj: Any) -> Any:
        return self._scored(obj, obj.winner, obj.winner_score)

    @extend_schema_field(PersonaScoredSerializer(allow_null=True))
    def get_runner_up(self, obj: Any) -> Any:
        return self._scored(obj, obj.runner_up, obj.runner_up_score)


# A mapping: arena, products, leaderboard, personas (and with weights: weights, persona_weights).
class ArenaDetailSerializer(serializers.Serializer):
    slug = serializers.CharField(source="arena.slug")
    name = serializers.CharField(source="arena.name")
    description = serializers.CharField(source="arena.description")
    story_count = serializers.IntegerField(source="arena.story_count")
    cell_count = serializers.IntegerField(source="arena.cell_count")
    updated = serializers.DateField(source="arena.updated", allow_null=True)
    evidence_as_of = serializers.DateField(source="arena.evidence_as_of", allow_null=True)
    scores_computed_at = serializers.DateTimeField(
        source="arena.scores_computed_at", allow_null=True
    )
    scores_pending = serializers.BooleanField(source="arena.scores_pending")
    products = ProductSerializer(many=True)
    leaderboard = LeaderboardRowSerializer(many=True)
    personas = PersonaResultSerializer(many=True, read_only=True)
    weights = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=3),
        required=False,
        help_text="With `?weights=`: the level (0-3) in effect for every category, by its slug.",
    )
    persona_weights = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=3),
        required=False,
        help_text="With `?weights=`: the level (0-3) in effect for every user type.",
    )


class MatrixCellSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    verdict = serializers.CharField()
    proof = serializers.CharField(allow_null=True)
    quality = serializers.IntegerField(allow_null=True)
    evidence_as_of = serializers.DateField(
        allow_null=True,
        help_text="When the cell's evidence was last checked: the newest of its evidence's "
        "`checked_on` and of the dates its verdict was judged (null: no date).",
    )
    backing = serializers.ChoiceField(
        choices=Backing.values,
        help_text="What backs the verdict on the pages: `quotes` (with sources), `rationale` "
        "(a rationale only) or `none` (no published evidence).",
    )


class EvidenceSerializer(serializers.Serializer):
    # (a field named ``source``: mypy reads it as the ``Field.source`` the metaclass moves it from)
    source = serializers.CharField()  # type: ignore[assignment]
    quote = serializers.CharField()
    url = serializers.URLField(
        required=False, help_text="Where the quote can be checked (left out: no link)"
    )
    checked_on = serializers.DateField(
        required=False, help_text="When the quote was last checked (left out: no date)"
    )

    def to_representation(self, instance: Any) -> Any:
        data = super().to_representation(instance)
        return {k: v for k, v in data.items() if v not in (None, "")}


class CompareCellSerializer(MatrixCellSerializer):
    rationale = serializers.CharField()
    detail_published = serializers.BooleanField()
    evidence = EvidenceSerializer(many=True, source="evidence.all")


# A matrix row or head-to-head round's story fields (no docstring: it would describe every story)
class StoryBaseSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="story.pk")
    text = serializers.CharField(source="story.text")
    persona = serializers.CharField(source="story.persona.slug")
    category = serializers.CharField(source="story.category.name")
    group = serializers.CharField(source="story.subgroup.name", allow_null=True)
    weight = serializers.IntegerField(source="story.weight")


class MatrixStorySerializer(StoryBaseSerializer):
    cells = ByProductField(child=MatrixCellSerializer(), source="by_product")


class MatrixSerializer(serializers.Serializer):
    products = ProductSlugsField()
    stories = MatrixStorySerializer(many=True, source="rows")  # (a page of them, in matrix order)
    count = serializers.IntegerField(help_text="The arena's stories, on every page")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last")


class CompareStorySerializer(StoryBaseSerializer):
    number = serializers.IntegerField()
    round = WinnerField(source="winner")
    cells = ByProductField(child=CompareCellSerializer(), source="by_product")


class CompareSummarySerializer(serializers.Serializer):
    rounds = serializers.IntegerField(source="round_count")
    won = ByProductField(child=serializers.IntegerField())
    drawn = serializers.IntegerField(source="summary.drawn")
    weighted = ByProductField(child=serializers.IntegerField())
    leader = WinnerField(source="rounds_leader")


class CompareSerializer(serializers.Serializer):
    products = ProductSlugsField()
    summary = CompareSummarySerializer(source="*")
    call = CallField(
        help_text="Who leads (`summary.leader` is who wins more rounds, a different thing)."
    )
    stories = CompareStorySerializer(many=True, source="rows")


class CompareManyStandingSerializer(serializers.Serializer):
    pa_score = serializers.IntegerField(allow_null=True, help_text="The stored PA Score, 0–100.")
    category_scores = ScoresField(help_text="The stored score of each category, by category name.")
    best = serializers.IntegerField(help_text="Rounds in which this product alone is best.")
    shared = serializers.IntegerField(
        help_text="Rounds in which it ties with others (not all) for the best verdict."
    )
    weighted = serializers.IntegerField(
        help_text="The sum of the weights of the rounds it is best in, alone or shared."
    )


class CompareManyStorySerializer(StoryBaseSerializer):
    best = ProductSlugsField(
        help_text="The products with the best verdict (then quality); empty when drawn."
    )
    cells = ByProductField(child=MatrixCellSerializer(), source="by_product")


class CompareManySerializer(serializers.Serializer):
    products = ProductSlugsField()
    summary = ByProductField(child=CompareManyStandingSerializer(), source="standings")
    call = CallField(
        help_text="Who leads: the product whose lowest possible PA Score is above every other's "
        "highest, if one does."
    )
    drawn = serializers.IntegerField(help_text="Rounds in which every competing verdict ties.")
    stories = CompareManyStorySerializer(
        many=True,
        source="rows",
        help_text="The rounds, in matrix order: stories where at least two of the products have a"
        " verdict other than n/a.",
    )
