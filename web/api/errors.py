"""Every answer under /api/ is JSON, refusals included (docs/contract.md, "API errors")."""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import resolve
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.views import exception_handler

API_PATH = "api/"  # where the root URLconf mounts the API

MESSAGES = {
    400: "Bad request.",
    403: "Not allowed.",
    404: "No such API address.",
    500: "Server error: the request was not completed. Try again later.",
}


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
    """The schema's refusals: ``codes`` with their bodies and descriptions."""
    return {
        code: OpenApiResponse(
            response=VALIDATION_ERROR_SCHEMA if code == 400 else ErrorSerializer,
            description=ERROR_DESCRIPTIONS[code],
        )
        for code in codes
    }


def api_error(status_code: int, exception: BaseException | None = None) -> JsonResponse:
    if isinstance(exception, RequestDataTooBig):
        size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        detail = f"The request body is larger than the {size} bytes this API reads."
        return JsonResponse({"detail": detail}, status=413)
    return JsonResponse({"detail": MESSAGES[status_code]}, status=status_code)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """An oversize body is a JSON 413 (Django raises it as an HTML 400)."""
    if isinstance(exc, RequestDataTooBig):
        return api_error(413, exc)
    return exception_handler(exc, context)


@csrf_exempt  # a 404 whatever the method: no form is processed
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """A JSON 404; an address lacking only its trailing slash is redirected (308 but for reads)."""
    path = request.path_info
    # (``resolve`` always finds a view: under /api/ this one answers what no route matches)
    if not path.endswith("/") and resolve(path + "/").func is not not_found:
        to = request.get_full_path(force_append_slash=True)
        code = 301 if request.method in ("GET", "HEAD") else 308
        response = JsonResponse({"detail": f"Moved to {to}"}, status=code)
        response["Location"] = to
        return response
    return api_error(404)


def api_or(status_code: int, site: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The root URLconf's ``handler<status_code>``: JSON under /api/, else the site's page."""

    def handler(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.path_info.startswith("/" + API_PATH):
            return api_error(status_code, kwargs.get("exception", args[0] if args else None))
        return site(request, *args, **kwargs)

    handler.__name__ = handler.__qualname__ = f"handler{status_code}"
    return handler
