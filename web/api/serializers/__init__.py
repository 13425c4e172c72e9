"""Serializers translate selector output to the JSON of docs/contract.md; no rules in here.

The package's public face (``from web.api import serializers as s``; ``s.X``): ``schema`` holds the
serializers the OpenAPI schema names (the reference for the JSON), ``data`` builds the same JSON
directly (the read endpoints' answers), ``fields`` the API's own fields and a product's result's,
``errors`` the error bodies.
"""

from web.api.serializers.data import (
    arena_detail_data,
    arena_list_data,
    compare_data,
    matrix_data,
)
from web.api.serializers.errors import ErrorSerializer, error_responses
from web.api.serializers.schema import (
    ArenaDetailSerializer,
    ArenaListSerializer,
    CompareSerializer,
    MatrixSerializer,
)

__all__ = [
    "ArenaDetailSerializer",
    "ArenaListSerializer",
    "CompareSerializer",
    "ErrorSerializer",
    "MatrixSerializer",
    "arena_detail_data",
    "arena_list_data",
    "compare_data",
    "error_responses",
    "matrix_data",
]
