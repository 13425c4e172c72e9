"""Serializers translate selector output to the JSON of docs/contract.md; no rules in here. The
same classes write the answers and describe them in the OpenAPI schema.

The package's public face (``from web.api import serializers as s``; ``s.X``): ``arenas`` the read
endpoints' serializers, ``fields`` the API's own fields and a product's result's, ``errors`` the
error bodies.
"""

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
