"""Request hygiene that every view, the admin's included, relies on."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, QueryDict


class DropNulFromQueryMiddleware:
    """A NUL character can reach no query: PostgreSQL refuses it in any text (a 500 from, e.g., an
    admin list filter ``?status=%00``). It is meaningless in a query string, so it is dropped from
    every parameter name and value before any view reads ``request.GET``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "%00" in query or "\x00" in query:
            cleaned = QueryDict(mutable=True)
            for key, values in request.GET.lists():
                cleaned.setlist(key.replace("\x00", ""), [v.replace("\x00", "") for v in values])
            cleaned._mutable = False
            request.GET = cleaned  # type: ignore[assignment]  # read-only now, as Django's own
        return self.get_response(request)
