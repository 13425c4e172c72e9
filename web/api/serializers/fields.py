"""The API's own serializer fields, and the fields of a product's result (``scoring.ProductResult``)
as a leaderboard row shows them, each field's serializer derived from the result's type."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, NamedTuple

from rest_framework import serializers
from rest_framework.fields import SkipField

from arena import scoring


class ProductSlugsField(serializers.ListField):
    """Products as the list of their slugs."""

    child = serializers.CharField()

    def to_representation(self, products: Iterable[Any]) -> list[str]:
        return [p.slug for p in products]


class ByProductField(serializers.DictField):
    """A mapping keyed by product, keyed by the product's slug."""

    def to_representation(self, mapping: Mapping[Any, Any]) -> dict[str, Any]:
        return {p.slug: self.child.to_representation(v) for p, v in mapping.items()}


class WinnerField(serializers.CharField):
    """A winner: its product's slug, or ``"drawn"`` when there is none (a drawn round, a level
    comparison)."""

    def get_attribute(self, instance: Any) -> str:
        winner: Any = super().get_attribute(instance)
        return scoring.DRAWN if winner is None else winner.slug


class ScoreRangeField(serializers.ListField):
    """A score's range ``[low, high]`` (``scoring.score_range``: every unverified cell one verdict
    step worse / better), null with no score."""

    child = serializers.IntegerField(min_value=0, max_value=100)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_length=2, max_length=2, allow_null=True, **kwargs)

    def to_representation(self, data: Any) -> list[int]:
        return [int(v) for v in data]  # (DRF writes a null without asking its field)


class RankRangeField(serializers.ListField):
    """The ranks a product could take if its unverified cells turned out either way, ``[best,
    worst]`` (``ProductScore.rank_best``/``rank_worst``), null when not stored."""

    child = serializers.IntegerField(min_value=1)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_length=2, max_length=2, allow_null=True, **kwargs)

    def to_representation(self, data: Any) -> list[int]:
        return [int(v) for v in data]


class Call(NamedTuple):
    """Who leads: the leading product's slug, or null (``close`` when it is too close to call)."""

    leader: str | None
    close: bool

    @classmethod
    def of(cls, leader: Any) -> Call:
        """The call of a comparison whose leader is ``leader`` (None: too close to call)."""
        return cls(leader.slug if leader is not None else None, leader is None)


class CallSerializer(serializers.Serializer):
    leader = serializers.CharField(
        allow_null=True,
        help_text="The product that leads by the one rule (its lowest possible PA Score above "
        "the other's highest; with several, above every other's); null: too close to call.",
    )
    close = serializers.BooleanField(help_text="True when it is too close to call.")


class _WithWeightsOnly(serializers.Field):
    """A field that only the answers with ``?weights=`` have: left out of a row not ranked by a
    caller's weights (one without ``personal_score``; a nullable field would be written as null)."""

    def get_attribute(self, instance: Any) -> Any:
        if not hasattr(instance, "personal_score"):
            raise SkipField()
        return super().get_attribute(instance)


class WeightedIntegerField(_WithWeightsOnly, serializers.IntegerField):
    pass


class WeightedRangeField(_WithWeightsOnly, ScoreRangeField):
    pass


# ---------------------------------------------------------------- a product's result


def _scores_field(**kwargs: Any) -> serializers.Field:
    return serializers.DictField(child=serializers.IntegerField(allow_null=True), **kwargs)


# The serializer field of each type annotation of a field in ``scoring.ProductResult``
_KINDS: dict[str, Callable[..., serializers.Field]] = {
    "int": serializers.IntegerField,
    "int | None": partial(serializers.IntegerField, allow_null=True),
    "str": serializers.CharField,
    "dict[str, int | None]": _scores_field,
    "tuple[int, int] | None": ScoreRangeField,
}
_TYPES = {f.name: str(f.type) for f in dataclasses.fields(scoring.ProductResult)}

# The fields of a product's result a leaderboard row leaves out: its product (the row names it),
# the counts and sums behind its scores, and the persona ranges (the persona results show them).
_NOT_SHOWN = frozenset(
    {
        "product",
        "name",
        "contradicted",
        "upheld",
        "favour_credit",
        "upheld_unevidenced",
        "weighted_quality",
        "weighted_max",
        "parts",
        "persona_ranges",
    }
)
# The fields of a product's result that a leaderboard row shows, in the result's order.
RESULT_FIELDS = tuple(name for name in _TYPES if name not in _NOT_SHOWN)
_RESULT_HELP = {
    "pa_range": "The PA Score's range [low, high]; null with no score.",
    "published_evidence": "Judged cells whose backing the pages publish (a quote or a rationale).",
    "judged": "Judged (applicable: not n/a) cells; the evidence share is published_evidence/judged.",
}


def result_fields(source: str) -> dict[str, serializers.Field]:
    """The serializer fields of ``RESULT_FIELDS``, read from the attribute ``source`` of a row
    (its ``scoring.ProductResult``)."""
    out = {}
    for name in RESULT_FIELDS:
        extra = {"help_text": _RESULT_HELP[name]} if name in _RESULT_HELP else {}
        out[name] = _KINDS[_TYPES[name]](source=f"{source}.{name}", **extra)
    return out
