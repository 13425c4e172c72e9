"""The root URLs."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views import defaults

from web.api import errors as api_errors
from web.http import health
from web.views import front, metrics

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    path(settings.ADMIN_URL, admin.site.urls),  # ADMIN_URL (config/settings.py)
    path(api_errors.API_PATH, include("web.api.urls")),
    path("", include("web.urls")),
]

# Under /api/ every refusal Django answers itself is JSON, as the API's own are (web/api/errors.py).
handler400 = api_errors.api_or(400, defaults.bad_request)
handler403 = api_errors.api_or(403, defaults.permission_denied)
handler404 = api_errors.api_or(404, front.page_not_found)
handler500 = api_errors.api_or(500, defaults.server_error)
