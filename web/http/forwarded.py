"""X-Forwarded-* and Forwarded only from our own proxies: Django believes SECURE_PROXY_SSL_HEADER
from anyone, and the scheme decides the https redirect, secure cookies and absolute links."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase

from web.http.clients import is_trusted_proxy, parse_address

FORWARDED_HEADERS = (
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_SSL",
    "HTTP_X_FORWARDED_PROTOCOL",
    "HTTP_FORWARDED",
)


def from_trusted_proxy(request: HttpRequest) -> bool:
    return is_trusted_proxy(parse_address(request.META.get("REMOTE_ADDR", "")))


class ForwardedHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not from_trusted_proxy(request):
            for name in FORWARDED_HEADERS:
                request.META.pop(name, None)
        return self.get_response(request)
