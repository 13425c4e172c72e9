"""GET /api/arenas/<arena>/compare/?products=…: its serializers and its query parameter."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from web.api.serializers.arenas import MatrixCellSerializer, StoryBaseSerializer
from web.api.serializers.fields import ByProductField, Call, CallSerializer, ProductSlugsField

# How the products are asked for: the query parameter's description in the schema.
PRODUCTS_HELP = (
    "Two to six product slugs, comma-separated (`a,b,c`) or repeated (`products=a&products=b`);"
    " the products are shown in that order."
)

# ...and its schema: comma-separated slugs (``style: form, explode: false``), two to six.
PRODUCTS_SCHEMA = {
    "type": "array",
    "items": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
    "minItems": 2,
    "maxItems": 6,
    "uniqueItems": True,
}


class CompareManyStandingSerializer(serializers.Serializer):
    pa_score = serializers.IntegerField(allow_null=True, help_text="The stored PA Score, 0–100.")
    category_scores = serializers.DictField(
        child=serializers.IntegerField(allow_null=True),
        help_text="The stored score of each category, by category name.",
    )
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
    call = serializers.SerializerMethodField(
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

    @extend_schema_field(CallSerializer())
    def get_call(self, cmp: Any) -> Any:
        return CallSerializer(Call.of(cmp.leader)).data
