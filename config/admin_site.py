"""The staff's admin site: a password, then a second factor (django-otp); only a session verified
by a device has the admin's permission (writes are ``flags.staff``'s)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urlencode

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import REDIRECT_FIELD_NAME, logout
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, URLResolver, path, reverse
from django.utils.functional import SimpleLazyObject
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django_otp import login as otp_login
from django_otp import user_has_device

from flags.staff import (
    staff_recovery_codes_renew,
    staff_token_verify,
    staff_totp_confirm,
    staff_totp_start,
)


class TokenForm(forms.Form):
    """A code from the authenticator app or a recovery code (the enrol page says its own help)."""

    token = forms.CharField(
        label="Code",
        max_length=40,
        help_text="The 6-digit code your authenticator app shows now, or one of your recovery "
        "codes (each works once).",
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "autofocus": True, "spellcheck": "false"}
        ),
    )


def is_verified(user: Any) -> bool:
    check = getattr(user, "is_verified", None)  # (none where the OTP middleware did not run)
    return bool(check and check())


def is_staff(user: Any) -> bool:
    return bool(user.is_authenticated and user.is_active and user.is_staff)


def asked_next(request: HttpRequest) -> str:
    return request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")


def next_url(request: HttpRequest) -> str:
    target = asked_next(request)
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if target and allowed else reverse("admin:index")


def with_next(name: str, request: HttpRequest) -> HttpResponseRedirect:
    target = asked_next(request)
    query = f"?{urlencode({REDIRECT_FIELD_NAME: target})}" if target else ""
    return HttpResponseRedirect(reverse(name) + query)


def _failed(request: HttpRequest, form: forms.Form) -> None:
    # a wrong code counts with django-axes as a wrong password does
    credentials = {"username": request.user.get_username()}
    user_login_failed.send(sender=__name__, credentials=credentials, request=request)
    form.add_error("token", "That code is not valid (or was already used). Try the next one.")


def _locked_out(request: HttpRequest) -> HttpResponse | None:
    # django-axes' answer when locked out; the half-signed-in session ends with it
    credentials = {"username": request.user.get_username()}
    if not AxesProxyHandler.is_locked(request, credentials):
        return None
    logout(request)
    return get_lockout_response(request, credentials=credentials)


class StaffAdminSite(admin.AdminSite):
    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and is_verified(request.user)

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        if is_staff(request.user) and not is_verified(request.user):
            return with_next("admin:second_factor", request)
        return super().login(request, extra_context)

    def get_urls(self) -> list[URLResolver | URLPattern]:
        def step(view: Any) -> Any:
            # the second step's pages: open to a staff user signed in with a password alone
            return never_cache(csrf_protect(view))

        return [
            path("second-factor/", step(self.second_factor), name="second_factor"),
            path("second-factor/enrol/", step(self.enrol), name="second_factor_enrol"),
            path(
                "second-factor/recovery-codes/",
                self.admin_view(self.recovery_codes),
                name="second_factor_recovery_codes",
            ),
            *super().get_urls(),
        ]

    def _page(self, request: HttpRequest, template: str, **context: Any) -> TemplateResponse:
        context = {**self.each_context(request), "next": next_url(request), **context}
        return TemplateResponse(request, f"admin/second_factor/{template}", context)

    def second_factor(self, request: HttpRequest) -> HttpResponse:
        user = cast(User, request.user)
        if not is_staff(user) or is_verified(user):
            return with_next("admin:login", request)
        if not user_has_device(user, confirmed=True):
            return with_next("admin:second_factor_enrol", request)
        if request.method == "POST" and "cancel" in request.POST:
            logout(request)
            return HttpResponseRedirect(next_url(request))
        if locked := _locked_out(request):
            return locked
        form = TokenForm(request.POST if request.method == "POST" else None)
        if form.is_valid():
            device = staff_token_verify(user, form.cleaned_data["token"])
            if device is not None:
                request.session.cycle_key()  # a new session id for the verified session
                otp_login(request, device)
                return HttpResponseRedirect(next_url(request))
            _failed(request, form)
        return self._page(request, "verify.html", title="Second step: your code", form=form)

    def enrol(self, request: HttpRequest) -> HttpResponse:
        """A new authenticator, confirmed by a code from it; a first one also gets recovery codes."""
        if not is_staff(request.user):
            return with_next("admin:login", request)
        user = cast(User, request.user)
        if not is_verified(user) and user_has_device(user, confirmed=True):
            # a stolen password must not be enough to add a device of one's own
            return with_next("admin:second_factor", request)
        if request.method == "POST" and (locked := _locked_out(request)):
            return locked
        form = TokenForm(request.POST if request.method == "POST" else None)
        form.fields["token"].widget.attrs["inputmode"] = "numeric"  # an authenticator's code only
        if form.is_valid():
            if (device := staff_totp_confirm(user, form.cleaned_data["token"])) is not None:
                if not is_verified(user):
                    request.session.cycle_key()
                    otp_login(request, device)
                codes = staff_recovery_codes_renew(user, first=True)
                return self._page(
                    request, "enrolled.html", title="Authenticator added", codes=codes
                )
            _failed(request, form)
        enrolment = staff_totp_start(user)  # (after a mistyped code: the same one again)
        return self._page(
            request, "enrol.html", title="Add an authenticator app", form=form, enrolment=enrolment
        )

    def recovery_codes(self, request: HttpRequest) -> HttpResponse:
        user = cast(User, request.user)
        codes = staff_recovery_codes_renew(user) if request.method == "POST" else None
        return self._page(request, "recovery_codes.html", title="Recovery codes", codes=codes)


LAST_SEEN = "staff_last_seen"
LAST_SEEN_RESOLUTION = 60  # seconds


class StaffSessionMiddleware:
    """After django-otp's middleware, which tells whether the session passed a second factor."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        in_admin = request.path_info.startswith("/" + settings.ADMIN_URL)
        otp_user = request.user
        # read lazily, as Django's own: a page that never touches the session stays cacheable
        request.user = SimpleLazyObject(lambda: staff_session(request, otp_user, in_admin))  # type: ignore[assignment]  # as Django's own
        response: HttpResponse = self.get_response(request)
        if in_admin:
            response.headers.setdefault("X-Robots-Tag", "noindex, nofollow")
        return response


def staff_session(request: HttpRequest, user: Any, in_admin: bool) -> Any:
    if not is_staff(user):
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
    if not in_admin and not is_verified(user):
        return AnonymousUser()
    return user
