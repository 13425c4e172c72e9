"""Serializers translate selector output to the JSON of docs/contract.md; no rules in here."""

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from arena import scoring


class ProductSlugsField(serializers.ListField):
    """Products as the list of their slugs."""

    child = serializers.CharField()

    def to_representation(self, products):
        return [p.slug for p in products]


class ByProductField(serializers.DictField):
    """A mapping keyed by product, keyed by the product's slug."""

    def to_representation(self, mapping):
        return {p.slug: self.child.to_representation(v) for p, v in mapping.items()}


class WinnerField(serializers.CharField):
    """A winner: its product's slug, or ``"drawn"`` when there is none (a drawn round, a level
    comparison)."""

    def get_attribute(self, instance):
        winner = super().get_attribute(instance)
        return scoring.DRAWN if winner is None else winner.slug


class ProductRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class ProductSerializer(ProductRefSerializer):
    tier = serializers.CharField()
    stars = serializers.IntegerField(allow_null=True)
    stars_growth = serializers.IntegerField(allow_null=True)
    npm_weekly = serializers.IntegerField(allow_null=True)
    pypi_weekly = serializers.IntegerField(allow_null=True)
    popularity_as_of = serializers.DateField(allow_null=True)


class ArenaListSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    product_count = serializers.IntegerField()
    story_count = serializers.IntegerField()
    leader = serializers.SerializerMethodField()
    updated = serializers.DateField(allow_null=True)
    scores_computed_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField()

    def get_leader(self, arena) -> dict | None:
        if not arena.leader_slug:
            return None
        return {"slug": arena.leader_slug, "name": arena.leader_name}

    def get_url(self, arena) -> str:
        return arena.get_absolute_url()


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    product = ProductRefSerializer()
    vs = serializers.SerializerMethodField()
    pa_score = serializers.IntegerField(allow_null=True)
    category_scores = serializers.DictField(child=serializers.IntegerField(allow_null=True))
    persona_scores = serializers.DictField(child=serializers.IntegerField(allow_null=True))
    verified = serializers.IntegerField()
    with_evidence = serializers.IntegerField()
    disputed = serializers.IntegerField()
    integrity = serializers.IntegerField(allow_null=True)
    confidence = serializers.CharField()

    def get_vs(self, row) -> str | None:
        return row.vs.slug if row.vs_id else None


class PersonaResultSerializer(serializers.Serializer):
    persona = serializers.CharField(source="persona.slug")
    label = serializers.CharField(source="persona.label")
    story_count = serializers.IntegerField()
    winner = serializers.SerializerMethodField()
    runner_up = serializers.SerializerMethodField()

    @staticmethod
    def _scored(product, score):
        if product is None:
            return None
        return {"product": product.slug, "name": product.name, "score": score}

    def get_winner(self, obj) -> dict | None:
        return self._scored(obj.winner, obj.winner_score)

    def get_runner_up(self, obj) -> dict | None:
        return self._scored(obj.runner_up, obj.runner_up_score)


class ArenaDetailSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    story_count = serializers.IntegerField()
    cell_count = serializers.IntegerField()
    updated = serializers.DateField(allow_null=True)
    evidence_as_of = serializers.DateField(allow_null=True)
    scores_computed_at = serializers.DateTimeField(allow_null=True)
    scores_pending = serializers.BooleanField()
    products = ProductSerializer(many=True)
    leaderboard = LeaderboardRowSerializer(many=True)
    personas = PersonaResultSerializer(many=True)


class MatrixCellSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    verdict = serializers.CharField()
    proof = serializers.CharField(allow_null=True)
    quality = serializers.IntegerField(allow_null=True)


class EvidenceSerializer(serializers.Serializer):
    source = serializers.CharField()
    quote = serializers.CharField()


class CompareCellSerializer(MatrixCellSerializer):
    rationale = serializers.CharField()
    detail_published = serializers.BooleanField()
    evidence = EvidenceSerializer(many=True, source="evidence.all")


# A matrix row or a head-to-head round: its story's fields, flat (no docstring: it would become
# the schema's description of every story).
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
    stories = MatrixStorySerializer(many=True, source="rows")


class CompareStorySerializer(StoryBaseSerializer):
    number = serializers.IntegerField()
    round = WinnerField(source="winner")
    cells = ByProductField(child=CompareCellSerializer())


class CompareSummarySerializer(serializers.Serializer):
    rounds = serializers.IntegerField(source="round_count")
    won = ByProductField(child=serializers.IntegerField())
    drawn = serializers.IntegerField(source="summary.drawn")
    weighted = ByProductField(child=serializers.IntegerField())
    leader = WinnerField()


class CompareSerializer(serializers.Serializer):
    products = ProductSlugsField()
    summary = CompareSummarySerializer(source="*")
    stories = CompareStorySerializer(many=True, source="rows")


# ---------------------------------------------------------------- error bodies (for the schema)


class ErrorSerializer(serializers.Serializer):
    """What every refusal but a validation error carries (DRF's own shape)."""

    detail = serializers.CharField()


# A validation error: a message list per field (``non_field_errors`` for the body as a whole), or a
# ``detail`` message when the body could not be read at all (malformed JSON).
VALIDATION_ERROR_SCHEMA = {
    "type": "object",
    "description": "A message (list) per field; `detail` when the body could not be read.",
    "additionalProperties": {
        "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
    },
    "example": {"note": ["Write the public note: why the verdict changes or stays."]},
}

ERROR_DESCRIPTIONS = {
    400: "Bad input: a message per field.",
    401: "Not logged in.",
    403: "Not allowed: not a moderator, or a cross-site request.",
    404: "No such object.",
    409: "The item changed or was resolved since it was read; nothing was changed.",
    415: "The body is not JSON (Content-Type: application/json).",
    429: "Too many requests; the Retry-After header says when to try again.",
}


def error_responses(*codes: int) -> dict:
    """The documented error responses of an operation, for ``extend_schema(responses=…)``."""
    return {
        code: OpenApiResponse(
            response=VALIDATION_ERROR_SCHEMA if code == 400 else ErrorSerializer,
            description=ERROR_DESCRIPTIONS[code],
        )
        for code in codes
    }
