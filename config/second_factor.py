"""The second step of the staff's sign-in and a device's enrolment; writes are ``flags.staff``'s."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django import forms
from django.contrib.auth import REDIRECT_FIELD_NAME, logout
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django_otp import login as otp_login

from flags.staff import (
    Enrolment,
    staff_has_recovery_codes,
    staff_has_second_factor,
    staff_recovery_codes_renew,
    staff_token_verify,
    staff_totp_confirm,
    staff_totp_pending,
    staff_totp_start,
)

TOKEN_ATTRS = {"autocomplete": "one-time-code", "autofocus": True, "spellcheck": "false"}


class TokenForm(forms.Form):
    token = forms.CharField(
        label="Code",
        max_length=40,
        help_text="The 6-digit code your authenticator app shows now, or one of your recovery "
        "codes (each works once).",
        widget=forms.TextInput(attrs=TOKEN_ATTRS),
    )


class ConfirmForm(forms.Form):
    device = forms.IntegerField(widget=forms.HiddenInput)
    token = forms.CharField(
        label="Code",
        max_length=10,
        help_text="The 6-digit code the app shows once it has read the QR code or the key.",
        widget=forms.TextInput(attrs={**TOKEN_ATTRS, "inputmode": "numeric"}),
    )


def is_verified(user: Any) -> bool:
    # (no is_verified where the OTP middleware did not run)
    check = getattr(user, "is_verified", None)
    return bool(check and check())


def awaits_second_factor(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_authenticated and user.is_active and user.is_staff) and not is_verified(
        user
    )


def next_url(request: HttpRequest) -> str:
    """The login's ``next``, if it is ours, else the admin's index."""
    target = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if target and allowed else reverse("admin:index")


def with_next(name: str, request: HttpRequest) -> HttpResponseRedirect:
    target = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME)
    query = f"?{urlencode({REDIRECT_FIELD_NAME: target})}" if target else ""
    return HttpResponseRedirect(reverse(name) + query)


def _user(request: HttpRequest) -> User:
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied
    return user


def _credentials(request: HttpRequest) -> dict[str, str]:
    return {"username": request.user.get_username()}


def _failed(request: HttpRequest, form: forms.Form) -> None:
    """A wrong code counts with django-axes as a wrong password does."""
    user_login_failed.send(sender=__name__, credentials=_credentials(request), request=request)
    form.add_error("token", "That code is not valid (or was already used). Try the next one.")


def _locked_out(request: HttpRequest) -> HttpResponse | None:
    """django-axes' answer when locked out; the half-signed-in session ends with it."""
    credentials = _credentials(request)
    if not AxesProxyHandler.is_locked(request, credentials):
        return None
    logout(request)
    return get_lockout_response(request, credentials=credentials)


def _page(request: HttpRequest, template: str, context: dict[str, Any]) -> TemplateResponse:
    return TemplateResponse(request, f"admin/second_factor/{template}", context)


def verify(request: HttpRequest, context: dict[str, Any], next_url: str) -> HttpResponse:
    """A right code, or a recovery code, verifies the session."""
    if not staff_has_second_factor(_user(request)):
        return with_next("admin:second_factor_enrol", request)
    if request.method == "POST" and "cancel" in request.POST:
        logout(request)
        return HttpResponseRedirect(next_url)
    if locked := _locked_out(request):
        return locked
    form = TokenForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        device = staff_token_verify(_user(request), form.cleaned_data["token"])
        if device is not None:
            request.session.cycle_key()  # a new session id for the verified session
            otp_login(request, device)
            return HttpResponseRedirect(next_url)
        _failed(request, form)
    title = "Second step: your code"
    return _page(
        request, "verify.html", {**context, "title": title, "form": form, "next": next_url}
    )


def enrol(request: HttpRequest, context: dict[str, Any], next_url: str) -> HttpResponse:
    """A new authenticator's QR code and key, shown once; a code from it confirms it and verifies
    the session. A first enrolment also gives the recovery codes, shown once."""
    user = _user(request)
    if request.method == "POST" and (locked := _locked_out(request)):
        return locked
    form = ConfirmForm(request.POST if request.method == "POST" else None)
    enrolment: Enrolment | None = None
    if form.is_valid():
        device = staff_totp_confirm(user, form.cleaned_data["device"], form.cleaned_data["token"])
        if device is not None:
            if not is_verified(user):
                request.session.cycle_key()
                otp_login(request, device)
            codes = [] if staff_has_recovery_codes(user) else staff_recovery_codes_renew(user)
            done = {**context, "title": "Authenticator added", "codes": codes, "next": next_url}
            return _page(request, "enrolled.html", done)
        _failed(request, form)
        enrolment = staff_totp_pending(user, form.cleaned_data["device"])
    if enrolment is None:
        enrolment = staff_totp_start(user)
        form = ConfirmForm(initial={"device": enrolment.device_id})
    page = {
        **context,
        "title": "Add an authenticator app",
        "form": form,
        "enrolment": enrolment,
        "next": next_url,
    }
    return _page(request, "enrol.html", page)


def recovery_codes(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    """On POST a new set, shown once; the old set stops working."""
    codes = staff_recovery_codes_renew(_user(request)) if request.method == "POST" else None
    page = {**context, "title": "Recovery codes", "codes": codes}
    return _page(request, "recovery_codes.html", page)
