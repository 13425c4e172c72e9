"""The staff's admin site: a password, then a second factor (config.second_factor); only a session
verified by a device has the admin's permission."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from config import second_factor
from config.second_factor import awaits_second_factor, is_verified, next_url, with_next
from flags.staff import staff_has_second_factor


class StaffAdminSite(admin.AdminSite):
    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and is_verified(request.user)

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        if awaits_second_factor(request):
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

    def second_factor(self, request: HttpRequest) -> HttpResponse:
        if not awaits_second_factor(request):
            return with_next("admin:login", request)
        return second_factor.verify(request, self.each_context(request), next_url(request))

    def enrol(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        if not (user.is_authenticated and user.is_active and user.is_staff):
            return with_next("admin:login", request)
        if not is_verified(user) and staff_has_second_factor(user):
            # a stolen password must not be enough to add a device of one's own
            return with_next("admin:second_factor", request)
        return second_factor.enrol(request, self.each_context(request), next_url(request))

    def recovery_codes(self, request: HttpRequest) -> HttpResponse:
        return second_factor.recovery_codes(request, self.each_context(request))
