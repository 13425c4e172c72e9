"""POST /api/flags/ for anyone (no CSRF: JSON only, no cross-site); moderators list and resolve."""

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count, QuerySet
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
from flags.forms import ID_MAX, DecisionForm, FlagForm, FlagIdsField
from flags.models import Flag, Status
from flags.services import (
    AlreadyResolved,
    FlagThrottled,
    flag_submit,
    review_item_reject,
    review_item_uphold,
)
from web.api.errors import error_responses
from web.http.clients import client_key

JSON_MESSAGE = "Send the flag as JSON, with Content-Type: application/json."
NOT_BOOLEAN = "Send true or false."
CROSS_SITE_MESSAGE = "Flags are sent from this site or by scripts, not from another site's pages."
STATUS_HELP = "Only flags whose review item has this status."


def refuse_cross_site(request: Request) -> None:
    """A foreign ``Origin`` (``null`` too) or ``Sec-Fetch-Site: cross-site``: scripts send neither."""
    if request.headers.get("Sec-Fetch-Site", "").strip().lower() == "cross-site":
        raise PermissionDenied(CROSS_SITE_MESSAGE)
    if (origin := request.headers.get("Origin")) is None:
        return
    own = {f"{request.scheme}://{request.get_host()}".lower()}
    own.update(o.lower() for o in settings.CSRF_TRUSTED_ORIGINS if "*" not in o)
    if origin.strip().lower().rstrip("/") not in own:
        raise PermissionDenied(CROSS_SITE_MESSAGE)


def json_object(request: Request, form: type[forms.Form]) -> dict[str, Any]:
    """The body, a JSON object whose booleans are ``true`` or ``false`` (not ``1`` or ``"yes"``)."""
    data = request.data
    if not isinstance(data, dict):
        raise serializers.ValidationError({"non_field_errors": ["Send a JSON object."]})
    flags = [n for n, f in form.base_fields.items() if isinstance(f, forms.BooleanField)]
    if wrong := {n: [NOT_BOOLEAN] for n in flags if n in data and not isinstance(data[n], bool)}:
        raise serializers.ValidationError(wrong)
    return data


def invalid(exc: DjangoValidationError) -> serializers.ValidationError:
    """A service's errors as DRF's 400 (``non_field_errors`` for the body as a whole)."""
    errors = serializers.as_serializer_error(exc)
    keyed = {"non_field_errors" if k == NON_FIELD_ERRORS else k: v for k, v in errors.items()}
    return serializers.ValidationError(keyed)


def field_of(field: forms.Field) -> serializers.Field:
    common: dict[str, Any] = {"required": field.required, "allow_null": not field.required}
    common["help_text"] = field.help_text or None
    if isinstance(field, FlagIdsField):
        ids = serializers.IntegerField(min_value=1, max_value=ID_MAX)
        return serializers.ListField(child=ids, min_length=1, **common)
    if isinstance(field, forms.BooleanField):
        return serializers.BooleanField(**common)
    if isinstance(field, forms.IntegerField):
        bounds: dict[str, Any] = {"min_value": field.min_value, "max_value": field.max_value}
        return serializers.IntegerField(**bounds, **common)
    if isinstance(field, forms.ChoiceField):
        choices = [(value, label) for value, label in field.choices if value]  # type: ignore[union-attr,misc]
        return serializers.ChoiceField(choices=choices, allow_blank=not field.required, **common)
    assert isinstance(field, forms.CharField)
    least = field.min_length or (1 if field.required else None)
    lengths: dict[str, Any] = {"min_length": least, "max_length": field.max_length}
    return serializers.CharField(allow_blank=not field.required, **lengths, **common)


def body_of(
    name: str, form: type[forms.Form], names: list[str], **more: serializers.Field
) -> type[serializers.Serializer]:
    """The serializer ``name`` (the schema's component) of the form's fields ``names``."""
    fields = {n: field_of(form.base_fields[n]) for n in names}
    return type(f"{name}Serializer", (serializers.Serializer,), {**fields, **more})


FLAG_FIELDS = ["reason", "explanation", "proposed_verdict", "proposed_quality", "source_url"]
FlagCreateSerializer = body_of(
    "FlagCreate",
    FlagForm,
    [*FLAG_FIELDS, "email", "affiliated"],
    cell=serializers.IntegerField(min_value=1, max_value=ID_MAX),
)
DECISION = ["note", "version", "flags"]
RejectSerializer = body_of(
    "Reject", DecisionForm, DECISION, duplicate=serializers.BooleanField(required=False)
)
UpholdSerializer = body_of(
    "Uphold", DecisionForm, [*DECISION, *(n for n in DecisionForm.base_fields if n not in DECISION)]
)


class FlagSerializer(serializers.ModelSerializer):
    status = serializers.CharField(source="item.status", read_only=True)
    item = serializers.IntegerField(source="item_id", read_only=True)
    status_url = serializers.SerializerMethodField()
    public_note = serializers.CharField(source="item.public_note", read_only=True)

    class Meta:
        model = Flag
        fields = """id status item cell reason proposed_verdict proposed_quality explanation
            source_url created_at status_url public_note affiliated""".split()

    def get_status_url(self, flag: Flag) -> str:
        return self.context["request"].build_absolute_uri(flag.get_absolute_url())


class ModeratorFlagSerializer(FlagSerializer):
    reporters = serializers.IntegerField(read_only=True)
    cell_verdict = serializers.CharField(source="cell.verdict", read_only=True)
    cell_version = serializers.IntegerField(
        source="cell.version",
        read_only=True,
        help_text="The cell's version: send it back with an uphold to refuse a stale one (409).",
    )
    product = serializers.CharField(source="cell.product.slug", read_only=True)
    story = serializers.CharField(source="cell.story.text", read_only=True)
    version = serializers.IntegerField(
        source="item.version",
        read_only=True,
        help_text="The review item's version: send it back with a decision (409 if it changed).",
    )

    class Meta(FlagSerializer.Meta):
        fields = [
            *FlagSerializer.Meta.fields,
            *"reporters cell_verdict cell_version product story version".split(),
        ]


DECIDED = {200: ModeratorFlagSerializer, **error_responses(400, 403, 404, 409, 413, 415, 429)}
STATUS = OpenApiParameter("status", OpenApiTypes.STR, enum=Status.values, description=STATUS_HELP)


class IsModerator(BasePermission):
    message = "Only moderators may see or resolve flags."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return user_can_moderate(request.user)


@extend_schema_view(
    list=extend_schema(
        parameters=[STATUS],
        responses={200: ModeratorFlagSerializer(many=True), **error_responses(400, 403, 429)},
    ),
    retrieve=extend_schema(
        responses={200: ModeratorFlagSerializer, **error_responses(403, 404, 429)}
    ),
)
class FlagViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ModeratorFlagSerializer  # the create answers a FlagSerializer

    def get_permissions(self) -> list[BasePermission]:
        # (a permission of its own per action, so that the schema says the create is anonymous)
        return [AllowAny()] if self.action == "create" else [IsModerator()]

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)
        if self.action == "create":
            refuse_cross_site(request)
            media_type, _ = parse_header_parameters(request.content_type or "")
            if media_type.lower() != "application/json":
                raise UnsupportedMediaType(media_type or "(none)", detail=JSON_MESSAGE)

    def check_throttles(self, request: Request) -> None:
        # FLAG_RATE limits flags in the database; throttles count only refused posts (no cache trip)
        if self.action != "create":
            super().check_throttles(request)

    def handle_exception(self, exc: Exception) -> Response:
        if self.action == "create" and not isinstance(exc, Throttled):
            try:
                super().check_throttles(self.request)
            except Throttled as throttled:
                exc = throttled
        return super().handle_exception(exc)

    def get_queryset(self) -> QuerySet[Flag]:
        qs = (
            Flag.objects.select_related("item", "cell__product", "cell__story")
            .annotate(reporters=Count("item__flags__client_hash", distinct=True))
            .order_by("created_at", "pk")
        )
        wanted = self.request.query_params.get("status") if self.action == "list" else None
        if wanted is not None:
            if wanted not in Status.values:
                choose = f"Choose a status: {', '.join(Status.values)}."
                raise serializers.ValidationError({"status": [choose]})
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
            raise invalid(exc) from None
        except FlagThrottled as exc:
            raise Throttled(wait=exc.retry_after) from None
        body = FlagSerializer(flag, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)

    def _resolve(self, request: Request, *, uphold: bool) -> Response:
        flag = self.get_object()  # 404 if none, 400 per field, 409 if the item changed since read
        data = json_object(request, DecisionForm)
        form = DecisionForm(data)
        try:
            if uphold:
                review_item_uphold(item=flag.item, moderator=request.user, form=form)
            else:
                dup = data.get("duplicate") is True
                review_item_reject(item=flag.item, moderator=request.user, form=form, duplicate=dup)
        except (AlreadyResolved, EditConflict) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except DjangoValidationError as exc:
            raise invalid(exc) from None
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
