from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
)
from rest_framework.routers import DefaultRouter

from web.api.flags import FlagViewSet
from web.api.views import ArenaViewSet
from web.views.front import ApiDocsView


@csrf_exempt  # a 404 whatever the method: no form is processed
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any other address under /api/ (an id or slug the routes do not accept, say): a JSON 404 like
    the API's own, not the site's HTML page."""
    return JsonResponse({"detail": "No such API address."}, status=404)


router = DefaultRouter()
router.register("arenas", ArenaViewSet, basename="api-arena")
router.register("flags", FlagViewSet, basename="api-flag")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("", include(router.urls)),
    # last: only what nothing above matched (addresses without the trailing slash still redirect)
    re_path(r"^[\s\S]*/$", not_found),
]
