from django.contrib import admin
from django.urls import include, path

from arena import health

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("api/", include("arena.api.urls")),
    path("", include("flags.urls")),
    path("", include("arena.site_urls")),
]
