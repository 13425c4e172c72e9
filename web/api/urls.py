from collections.abc import Collection
from typing import cast

from django.conf import settings
from django.urls import include, path, re_path
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView
from rest_framework.routers import DefaultRouter

from web.api.errors import not_found
from web.api.flags import FlagViewSet
from web.api.views import ArenaViewSet
from web.views.front import ApiDocsView

REDOC_CSP: dict[str, Collection[str] | str] = {
    **cast(dict[str, Collection[str] | str], settings.SECURE_CSP),
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "worker-src": [CSP.SELF, "blob:"],  # its search index: a worker from its bundle (a blob: URL)
}

# ReDoc writes <style> elements at run time: this one page relaxes style-src (REDOC_CSP)
redoc = csp_override(REDOC_CSP)(SpectacularRedocView.as_view(url_name="api-schema"))
router = DefaultRouter()
router.register("arenas", ArenaViewSet, basename="api-arena")
router.register("flags", FlagViewSet, basename="api-flag")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", redoc, name="api-redoc"),
    path("", include(router.urls)),
    re_path(r"^[\s\S]*$", not_found),  # last: only what nothing above matched
]
