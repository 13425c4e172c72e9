"""The API's own fields."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework import serializers

from arena.scoring.rounds import DRAWN


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


class CallSerializer(serializers.Serializer):
    leader = serializers.CharField(
        allow_null=True,
        help_text="The product that leads by the one rule (its lowest possible PA Score above "
        "the other's highest; with several, above every other's); null: too close to call.",
    )
    close = serializers.BooleanField(help_text="True when it is too close to call.")


def call(leader: Any) -> dict[str, Any]:
    """A comparison's call (``CallSerializer``'s shape): the product that leads, or none."""
    return {"leader": leader.slug if leader is not None else None, "close": leader is None}


class ScoresField(serializers.DictField):
    child = serializers.IntegerField(allow_null=True)
