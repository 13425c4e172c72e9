"""The API's own fields, and a product's result's fields from ``scoring.ProductResult``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, NamedTuple

from rest_framework import serializers
from rest_framework.fields import SkipField

from arena import scoring


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
        return scoring.DRAWN if winner is None else winner.slug


class ScoreRangeField(serializers.ListField):
    """``[low, high]`` of a score (or ``[best, worst]`` of a rank: ``low=1, high=None``), or null."""

    def __init__(self, low: int = 0, high: int | None = 100, **kwargs: Any) -> None:
        child = serializers.IntegerField(min_value=low, max_value=high)
        super().__init__(child=child, min_length=2, max_length=2, allow_null=True, **kwargs)

    def to_representation(self, data: Any) -> list[int]:
        return [int(v) for v in data]  # (DRF writes a null without asking its field)


class Call(NamedTuple):
    leader: str | None
    close: bool

    @classmethod
    def of(cls, leader: Any) -> Call:
        return cls(leader.slug if leader is not None else None, leader is None)


class CallSerializer(serializers.Serializer):
    leader = serializers.CharField(
        allow_null=True,
        help_text="The product that leads by the one rule (its lowest possible PA Score above "
        "the other's highest; with several, above every other's); null: too close to call.",
    )
    close = serializers.BooleanField(help_text="True when it is too close to call.")


class _WithWeightsOnly(serializers.Field):
    """Left out of a row not ranked by a caller's weights (not written as null)."""

    def get_attribute(self, instance: Any) -> Any:
        if not hasattr(instance, "personal_score"):
            raise SkipField()
        return super().get_attribute(instance)


class WeightedIntegerField(_WithWeightsOnly, serializers.IntegerField):
    pass


class WeightedRangeField(_WithWeightsOnly, ScoreRangeField):
    pass


def _scores_field(**kwargs: Any) -> serializers.Field:
    return serializers.DictField(child=serializers.IntegerField(allow_null=True), **kwargs)


# The serializer field of each type annotation in ``scoring.ProductResult``
_KINDS: dict[str, Callable[..., serializers.Field]] = {
    "int": serializers.IntegerField,
    "int | None": partial(serializers.IntegerField, allow_null=True),
    "str": serializers.CharField,
    "dict[str, int | None]": _scores_field,
    "tuple[int, int] | None": ScoreRangeField,
}
_TYPES = {f.name: str(f.type) for f in dataclasses.fields(scoring.ProductResult)}

# What a leaderboard row leaves out: the product, the sums behind its scores, the persona ranges.
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
RESULT_FIELDS = tuple(name for name in _TYPES if name not in _NOT_SHOWN)
_RESULT_HELP = {
    "pa_range": "The PA Score's range [low, high]; null with no score.",
    "published_evidence": "Judged cells whose backing the pages publish (a quote or a rationale).",
    "judged": "Judged (applicable: not n/a) cells; the evidence share is published_evidence/judged.",
}


def result_fields(source: str) -> dict[str, serializers.Field]:
    out = {}
    for name in RESULT_FIELDS:
        extra = {"help_text": _RESULT_HELP[name]} if name in _RESULT_HELP else {}
        out[name] = _KINDS[_TYPES[name]](source=f"{source}.{name}", **extra)
    return out
