"""The API's own fields."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


class ScoresField(serializers.DictField):
    child = serializers.IntegerField(allow_null=True)
