"""Request hygiene that every view, the admin's included, relies on."""

from collections.abc import Callable
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, QueryDict


class DropNulFromQueryMiddleware:
    """PostgreSQL refuses a NUL in any text (a 500 from ``?status=%00`` in an admin filter)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "%00" in query or "\x00" in query:
            pairs = [
                (key.replace("\x00", ""), value.replace("\x00", ""))
                for key, values in request.GET.lists()
                for value in values
            ]
            # (read-only, as Django's own)
            request.GET = QueryDict(urlencode(pairs))
        return self.get_response(request)
