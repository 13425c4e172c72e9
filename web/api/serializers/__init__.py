"""Serializers translate selector output to the JSON of docs/contract.md; the error bodies, for the schema."""

from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """What every refusal but a validation error carries (DRF's own shape)."""

    detail = serializers.CharField()


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
    413: "The body is larger than the API reads (DATA_UPLOAD_MAX_MEMORY_SIZE).",
    415: "The body is not JSON (Content-Type: application/json).",
    429: "Too many requests; the Retry-After header says when to try again.",
}


def error_responses(*codes: int) -> dict[int, Any]:
    return {
        code: OpenApiResponse(
            response=VALIDATION_ERROR_SCHEMA if code == 400 else ErrorSerializer,
            description=ERROR_DESCRIPTIONS[code],
        )
        for code in codes
    }
