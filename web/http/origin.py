"""Remembers the origin of each write request (``flags.origin.REQUEST_ORIGIN``), so that the mails
a flag or a decision causes link back to the site the visitor used when SITE_URL is not set."""

from collections.abc import Callable

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from flags.origin import REQUEST_ORIGIN

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class RequestOriginMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method in SAFE_METHODS:  # reads write no notice
            return self.get_response(request)
        try:
            origin = f"{request.scheme}://{request.get_host()}"
        except DisallowedHost:  # CommonMiddleware answers that request with a 400 anyway
            origin = ""
        token = REQUEST_ORIGIN.set(origin)
        try:
            return self.get_response(request)
        finally:
            REQUEST_ORIGIN.reset(token)
