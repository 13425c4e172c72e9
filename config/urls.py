"""The root URLs: the health checks, the admin (at ``ADMIN_URL``), the API (``web.api.urls``) and the public site
(``web.urls``)."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from web.http import health
from web.views import metrics

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    path(settings.ADMIN_URL, admin.site.urls),  # ADMIN_URL (config/security.py)
    path("api/", include("web.api.urls")),
    path("", include("web.urls")),
]

# the site's 404: the nearest arenas, products and stories to the missing address, and a search
handler404 = "web.views.front.page_not_found"
