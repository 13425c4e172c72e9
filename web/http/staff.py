"""The staff's sessions: who verified a second factor (django-otp's middleware, which this one
is), how long a staff session lives, and what a half-signed-in session may open.

- A staff session ends at browser close (its cookie has no expiry) and after
  ``STAFF_SESSION_IDLE_HOURS`` without a request (the last request's time is kept in the session,
  rewritten at most once a minute so that each admin page does not write the session).
- A staff user signed in with a password but not yet through the second factor is someone else
  until they are: outside the admin (whose sign-in pages take them through it) the request is
  anonymous, so the moderators' API, say, does not open on a password alone.
- The admin's pages are never indexed (``X-Robots-Tag``): robots.txt names the admin only at its
  default address, never a secret one.
Visitors' requests are not touched (a page served from the page cache does not even get here).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject
from django_otp.middleware import OTPMiddleware

LAST_SEEN = "staff_last_seen"
LAST_SEEN_RESOLUTION = 60  # seconds


class StaffSessionMiddleware(OTPMiddleware):
    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        super().__init__(get_response)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self._install_lazy_accessors(request)
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
    """The request's user after the staff's rules: anonymous when their session was idle too long
    (the session is then emptied) or, outside the admin, not yet through the second factor."""
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
