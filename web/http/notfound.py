"""DEBUG_SITE_404: the site's own 404 while DEBUG is on (Django then shows its technical one)."""

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import Resolver404, get_resolver, resolve


def _site_404(request: HttpRequest, exception: Exception) -> HttpResponse:
    # the root URLconf's handler404, looked up (the views are a layer above this one)
    handler: Callable[..., HttpResponse] = get_resolver().resolve_error_handler(404)
    response = handler(request, exception)
    return response


def _enabled() -> bool:
    return bool(settings.DEBUG and getattr(settings, "DEBUG_SITE_404", False))


class SiteNotFoundMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _enabled():
            try:
                resolve(request.path_info)
            except Resolver404 as missing:
                return _site_404(request, missing)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404) and _enabled():
            return _site_404(request, exception)
        return None
