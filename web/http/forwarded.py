"""Forwarded headers only from our own proxies.

Django believes ``SECURE_PROXY_SSL_HEADER`` (X-Forwarded-Proto) from whoever sends it, and the
request's scheme decides the https redirect, secure cookies and the absolute links of a page. So
this middleware, early in MIDDLEWARE, drops every X-Forwarded-* header (and ``Forwarded``) from a
request whose REMOTE_ADDR is not a trusted proxy (``TRUSTED_PROXIES`` above 0 and the address in
``TRUSTED_PROXY_IPS``): what such a client claims about itself never reaches a view, a cached
page or a log. From a trusted proxy they stay, and Django reads the scheme its proxy wrote.
(gunicorn believes none of them itself: gunicorn.conf.py.)
"""

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
    """Whether ``request`` reached the app through one of our own proxies."""
    return is_trusted_proxy(parse_address(request.META.get("REMOTE_ADDR", "")))


class ForwardedHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not from_trusted_proxy(request):
            for name in FORWARDED_HEADERS:
                request.META.pop(name, None)
        return self.get_response(request)
