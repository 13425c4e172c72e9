"""Staff sessions: an idle limit (STAFF_SESSION_IDLE_HOURS), an end at browser close, and outside
the admin a staff user not yet through django-otp's second factor is anonymous."""

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject

LAST_SEEN = "staff_last_seen"
LAST_SEEN_RESOLUTION = 60  # seconds


class StaffSessionMiddleware:
    """After django-otp's middleware, which tells whether the session passed a second factor."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        in_admin = request.path_info.startswith("/" + settings.ADMIN_URL)
        otp_user = request.user
        # read when something reads the user, as Django's own: a page that does not touch the
        # session (a public page, cacheable) is not made to
        request.user = SimpleLazyObject(lambda: staff_session(request, otp_user, in_admin))  # type: ignore[assignment]  # as Django's own
        response: HttpResponse = self.get_response(request)
        if in_admin:
            response.headers.setdefault("X-Robots-Tag", "noindex, nofollow")
        return response


def staff_session(request: HttpRequest, user: Any, in_admin: bool) -> Any:
    if not (user.is_authenticated and user.is_staff):
        return user
    now = time.time()
    last = request.session.get(LAST_SEEN)
    if isinstance(last, (int, float)) and now - last > settings.STAFF_SESSION_IDLE_HOURS * 3600:
        request.session.flush()  # signed out: the session's data and its cookie gone
        return AnonymousUser()
    if not request.session.get_expire_at_browser_close():
        request.session.set_expiry(0)  # ends when the browser closes
    if not isinstance(last, (int, float)) or now - last >= LAST_SEEN_RESOLUTION:
        request.session[LAST_SEEN] = now
    if not in_admin and not user.is_verified():
        return AnonymousUser()
    return user
