"""Request hygiene that every view, the admin's included, relies on."""

from collections.abc import Callable
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.urls import Resolver404, get_resolver, resolve

from web.http.clients import is_trusted_proxy, parse_address

Handler = Callable[[HttpRequest], HttpResponse]
FORWARDED = ("HTTP_X_FORWARDED_", "HTTP_FORWARDED")  # X-Forwarded-*, Forwarded


def request_hygiene(get_response: Handler) -> Handler:
    """X-Forwarded-* and Forwarded only from our proxies; no NUL in the query (PostgreSQL's 500)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not is_trusted_proxy(parse_address(request.META.get("REMOTE_ADDR", ""))):
            for name in [k for k in request.META if k.startswith(FORWARDED)]:
                del request.META[name]
        query = request.META.get("QUERY_STRING", "")
        if "%00" in query or "\x00" in query:
            pairs = [
                (key.replace("\x00", ""), value.replace("\x00", ""))
                for key, values in request.GET.lists()
                for value in values
            ]
            request.GET = QueryDict(urlencode(pairs))
        return get_response(request)

    return middleware


def site_404(request: HttpRequest, exception: Exception) -> HttpResponse:
    # the root URLconf's handler404, looked up (the views are a layer above this one)
    handler: Callable[..., HttpResponse] = get_resolver().resolve_error_handler(404)
    return handler(request, exception)


class SiteNotFoundMiddleware:
    """DEBUG_SITE_404: the site's own 404 while DEBUG is on (Django then shows its technical one)."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.DEBUG and settings.DEBUG_SITE_404:
            try:
                resolve(request.path_info)
            except Resolver404 as missing:
                return site_404(request, missing)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404) and settings.DEBUG and settings.DEBUG_SITE_404:
            return site_404(request, exception)
        return None
