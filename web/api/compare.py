"""The JSON of a comparison of two to six products (``GET /api/arenas/<arena>/compare/?products=…``):
serializers that name it in the schema, and ``compare_many_data``, the same JSON built directly
(as ``serializers`` builds the other read endpoints' JSON; tests check one against the other)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from arena.selectors.compare import ManyComparison
from web.api.serializers.data import matrix_cell_data, story_data
from web.api.serializers.fields import (
    ByProductField,
    CallSerializer,
    ProductSlugsField,
    call_data,
    scores_data,
)
from web.api.serializers.schema import MatrixCellSerializer, StoryBaseSerializer

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
    def get_call(self, cmp: Any) -> dict[str, Any]:
        return call_data(cmp.leader)


def compare_many_data(cmp: ManyComparison) -> dict[str, Any]:
    """``CompareManySerializer`` of a ``compare_many_get``."""
    stories = []
    for row in cmp.rows:
        story = story_data(row.story)
        story["best"] = [p.slug for p in row.best]
        story["cells"] = {c.product.slug: matrix_cell_data(c) for c in row.cells}
        stories.append(story)
    return {
        "products": [p.slug for p in cmp.products],
        "summary": {
            p.slug: {
                "pa_score": s.pa_score,
                "category_scores": scores_data(s.category_scores),
                "best": s.best,
                "shared": s.shared,
                "weighted": s.weighted,
            }
            for p, s in cmp.standings.items()
        },
        "call": call_data(cmp.leader),
        "drawn": cmp.drawn,
        "stories": stories,
    }
