"""POST /api/flags/ for anyone; listing and resolving for moderators (session login, DRF's CSRF).

The anonymous POST has no CSRF token (scripts use it), so it reads only JSON (a cross-site form
cannot send it without a CORS preflight, never granted) and refuses what a browser marks as coming
from another site (``Origin``, ``Sec-Fetch-Site``)."""

from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count, QuerySet
from django.forms import BooleanField, Form
from django.utils.http import parse_header_parameters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, Throttled, UnsupportedMediaType
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.conflicts import EditConflict
from core.moderators import user_can_moderate
from flags.forms import DecisionForm, FlagForm
from flags.models import Flag, Status
from flags.services import (
    AlreadyResolved,
    FlagThrottled,
    flag_submit,
    review_item_reject,
    review_item_uphold,
)
from web.api.flag_bodies import (
    FlagCreateSerializer,
    FlagSerializer,
    ModeratorFlagSerializer,
    RejectSerializer,
    UpholdSerializer,
)
from web.api.parsers import SafeJSONParser
from web.api.serializers import error_responses
from web.http.clients import client_key

JSON_MESSAGE = "Send the flag as JSON, with Content-Type: application/json."
NOT_BOOLEAN = "Send true or false."
CROSS_SITE_MESSAGE = "Flags are sent from this site or by scripts, not from another site's pages."


def refuse_cross_site(request: Request) -> None:
    """A foreign ``Origin`` (``null`` too) or ``Sec-Fetch-Site: cross-site``: scripts send neither."""
    if request.headers.get("Sec-Fetch-Site", "").strip().lower() == "cross-site":
        raise PermissionDenied(CROSS_SITE_MESSAGE)
    origin = request.headers.get("Origin")
    if origin is None:
        return
    own = {f"{request.scheme}://{request.get_host()}".lower()}
    own.update(o.lower() for o in settings.CSRF_TRUSTED_ORIGINS if "*" not in o)
    if origin.strip().lower().rstrip("/") not in own:
        raise PermissionDenied(CROSS_SITE_MESSAGE)


def require_json(request: Request) -> None:
    media_type, _ = parse_header_parameters(request.content_type or "")
    if media_type.lower() != "application/json":
        raise UnsupportedMediaType(media_type or "(none)", detail=JSON_MESSAGE)


def json_object(request: Request, form: type[Form]) -> dict[str, Any]:
    """The body, a JSON object whose booleans are ``true`` or ``false`` (not ``1`` or ``"yes"``)."""
    data = request.data
    if not isinstance(data, dict):
        raise serializers.ValidationError({"non_field_errors": ["Send a JSON object."]})
    flags = [n for n, f in form.base_fields.items() if isinstance(f, BooleanField)]
    if wrong := {n: [NOT_BOOLEAN] for n in flags if n in data and not isinstance(data[n], bool)}:
        raise serializers.ValidationError(wrong)
    return data


def field_errors(exc: DjangoValidationError) -> dict[str, Any]:
    """A service's errors as DRF's 400 body (``non_field_errors`` for the body as a whole)."""
    errors = serializers.as_serializer_error(exc)
    return {"non_field_errors" if k == NON_FIELD_ERRORS else k: v for k, v in errors.items()}


DECIDED = {200: ModeratorFlagSerializer, **error_responses(400, 403, 404, 409, 413, 415, 429)}


class IsModerator(BasePermission):
    message = "Only moderators may see or resolve flags."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return user_can_moderate(request.user)


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=Status.values,
                description="Only flags whose review item has this status.",
            )
        ],
        responses={200: ModeratorFlagSerializer(many=True), **error_responses(400, 403, 429)},
    ),
    retrieve=extend_schema(
        responses={200: ModeratorFlagSerializer, **error_responses(403, 404, 429)}
    ),
)
class FlagViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = ModeratorFlagSerializer  # the create answers a FlagSerializer
    parser_classes = [SafeJSONParser]

    def get_permissions(self) -> list[BasePermission]:
        if self.action == "create":
            return [AllowAny()]
        return [IsModerator()]

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)
        if self.action == "create":
            refuse_cross_site(request)
            require_json(request)

    def get_queryset(self) -> QuerySet[Flag]:
        qs = (
            Flag.objects.select_related("item", "cell__product", "cell__story")
            .annotate(reporters=Count("item__flags__client_hash", distinct=True))
            .order_by("created_at", "pk")
        )
        wanted = self.request.query_params.get("status") if self.action == "list" else None
        if wanted is not None:
            if wanted not in Status.values:
                raise serializers.ValidationError(
                    {"status": [f"Choose a status: {', '.join(Status.values)}."]}
                )
            qs = qs.filter(item__status=wanted)
        return qs

    @extend_schema(
        request=FlagCreateSerializer,
        responses={201: FlagSerializer, **error_responses(400, 403, 413, 415, 429)},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        try:
            form = FlagForm(json_object(request, FlagForm))
            flag = flag_submit(form=form, client=client_key(request))
        except DjangoValidationError as exc:
            raise serializers.ValidationError(field_errors(exc)) from None
        except FlagThrottled as exc:
            raise Throttled(wait=exc.retry_after) from None
        body = FlagSerializer(flag, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)

    def _resolve(self, request: Request, *, uphold: bool) -> Response:
        """Apply the decision once: 404 for no such flag, 400 per field, 409 when the item was
        resolved or changed since it was read."""
        flag = self.get_object()
        data = json_object(request, DecisionForm)
        form = DecisionForm(data)
        try:
            if uphold:
                review_item_uphold(item=flag.item, moderator=request.user, form=form)
            else:
                duplicate = data.get("duplicate") is True
                review_item_reject(
                    item=flag.item, moderator=request.user, form=form, duplicate=duplicate
                )
        except (AlreadyResolved, EditConflict) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(field_errors(exc)) from None
        flag = self.get_queryset().get(pk=flag.pk)
        return Response(ModeratorFlagSerializer(flag, context={"request": request}).data)

    @extend_schema(request=UpholdSerializer, responses=DECIDED)
    @action(detail=True, methods=["post"])
    def uphold(self, request: Request, pk: str | None = None) -> Response:
        return self._resolve(request, uphold=True)

    @extend_schema(request=RejectSerializer, responses=DECIDED)
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        return self._resolve(request, uphold=False)
