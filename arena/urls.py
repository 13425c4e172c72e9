from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("arena.api.urls")),
    path("", include("flags.urls")),
    path("", include("arena.site_urls")),
]
