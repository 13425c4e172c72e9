"""Serializers translate selector output to the JSON of docs/contract.md and describe it in the schema."""

from web.api.serializers.arenas import (
    ArenaDetailSerializer,
    ArenaListSerializer,
    CompareSerializer,
    MatrixSerializer,
)
from web.api.serializers.errors import ErrorSerializer, error_responses

__all__ = [
    "ArenaDetailSerializer",
    "ArenaListSerializer",
    "CompareSerializer",
    "ErrorSerializer",
    "MatrixSerializer",
    "error_responses",
]
