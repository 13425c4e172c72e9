"""POST /api/flags/ for anyone; listing and resolving for moderators (session login).

The anonymous POST carries no CSRF token (scripts use it), so it guards itself against cross-site
use by a browser: it reads only JSON bodies (a cross-site HTML form cannot send one without a CORS
preflight, which this site never grants) and refuses requests a browser marks as coming from another
site (``Origin``, ``Sec-Fetch-Site``). The moderators' endpoints go by the session, with DRF's CSRF
check.
"""

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count
from django.utils.http import parse_header_parameters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, Throttled, UnsupportedMediaType
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.response import Response

from flags.filing import FlagThrottled
from flags.inputs import (
    EMAIL_MAX,
    EXPLANATION_MAX,
    EXPLANATION_MIN,
    ID_MAX,
    NOTE_MAX,
    NOTE_MISSING,
    SOURCE_URL_MAX,
    FlagInput,
    ModerationDecision,
    explanation_error,
    one_line_error,
)
from flags.models import Flag, Reason, Status
from flags.selectors import user_can_moderate
from flags.services import (
    EVIDENCE_QUOTE_MAX,
    FLAG_SLOTS,
    RATIONALE_MAX,
    AlreadyResolved,
    flag_submit,
    review_item_reject,
    review_item_uphold,
)
from stories.conflicts import EditConflict
from stories.values import JUDGEMENT_FIELDS, QUALITY_MAX, Proof, Verdict
from web.api.parsers import SafeJSONParser
from web.api.serializers import error_responses
from web.http.clients import client_key

VERSION_MAX = 2**31 - 1  # a version is a PositiveIntegerField
JSON_MESSAGE = "Send the flag as JSON, with Content-Type: application/json."
CROSS_SITE_MESSAGE = "Flags are sent from this site or by scripts, not from another site's pages."


def refuse_cross_site(request) -> None:
    """Raise PermissionDenied for a request a browser says comes from another site: an ``Origin``
    that is not this site's (``null`` included) or ``Sec-Fetch-Site: cross-site``. Scripts send
    neither header and pass."""
    if request.headers.get("Sec-Fetch-Site", "").strip().lower() == "cross-site":
        raise PermissionDenied(CROSS_SITE_MESSAGE)
    origin = request.headers.get("Origin")
    if origin is None:
        return
    own = {f"{request.scheme}://{request.get_host()}".lower()}
    own.update(o.lower() for o in settings.CSRF_TRUSTED_ORIGINS if "*" not in o)
    if origin.strip().lower().rstrip("/") not in own:
        raise PermissionDenied(CROSS_SITE_MESSAGE)


def require_json(request) -> None:
    """Raise UnsupportedMediaType (415) unless the body is declared as JSON."""
    media_type, _ = parse_header_parameters(request.content_type or "")
    if media_type.lower() != "application/json":
        raise UnsupportedMediaType(media_type or "(none)", detail=JSON_MESSAGE)


def _checked(rule: Callable[[str], str | None], value: str) -> str:
    """The value as sent, or the rule's message (the rules are ``flags.inputs``')."""
    message = rule(value)
    if message:
        raise serializers.ValidationError(message)
    return value


@extend_schema_field({"type": "string", "minLength": EXPLANATION_MIN, "maxLength": EXPLANATION_MAX})
class ExplanationField(serializers.CharField):
    """A text whose bounds are ``flags.inputs``' rule (counted once control characters are
    dropped): the schema states them, ``explanation_error`` checks them (a blank one too)."""

    def __init__(self, **kwargs):
        super().__init__(error_messages={"blank": explanation_error("")}, **kwargs)


@extend_schema_field({"type": "string", "minLength": 1, "maxLength": NOTE_MAX})
class NoteField(serializers.CharField):
    """A public note, checked by ``ModerationDecision`` (the schema states its bounds)."""

    def __init__(self, **kwargs):
        missing = {"required": NOTE_MISSING, "null": NOTE_MISSING, "blank": NOTE_MISSING}
        super().__init__(error_messages=missing, **kwargs)


def field_errors(exc: DjangoValidationError) -> dict[str, list[str]]:
    """A service's ValidationError as DRF's 400 body: a message list per field."""
    if not hasattr(exc, "error_dict"):
        return {"non_field_errors": exc.messages}
    return {
        ("non_field_errors" if field == NON_FIELD_ERRORS else field): messages
        for field, messages in exc.message_dict.items()
    }


class IsModerator(BasePermission):
    message = "Only moderators may see or resolve flags."

    def has_permission(self, request, view):
        return user_can_moderate(request.user)


class FlagCreateSerializer(serializers.Serializer):
    """A flag on a cell's verdict. What the schema cannot say (the cell exists and is not retired, a
    proposal is a valid cell: `none` has quality 0, `n/a` none; one pending flag per client and
    cell) is checked on submission, with a message per field."""

    cell = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    reason = serializers.ChoiceField(choices=Reason.choices)
    explanation = ExplanationField()
    proposed_verdict = serializers.ChoiceField(
        choices=Verdict.choices, required=False, allow_blank=True, allow_null=True
    )
    proposed_quality = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=QUALITY_MAX
    )
    source_url = serializers.URLField(
        required=False,
        allow_blank=True,
        max_length=SOURCE_URL_MAX,
        help_text="An http(s) address where a moderator can check the claim; a moderator who "
        "upholds the flag may accept it as new evidence of the cell.",
    )
    email = serializers.EmailField(required=False, allow_blank=True, max_length=EMAIL_MAX)

    def validate_explanation(self, value: str) -> str:
        return _checked(explanation_error, value)

    def validate_source_url(self, value: str) -> str:
        return _checked(one_line_error, value)

    def validate_email(self, value: str) -> str:
        return _checked(one_line_error, value)

    def flag_input(self) -> FlagInput:
        return FlagInput.from_fields(self.validated_data)


class FlagSerializer(serializers.ModelSerializer):
    status = serializers.CharField(source="item.status", read_only=True)
    item = serializers.IntegerField(source="item_id", read_only=True)
    status_url = serializers.SerializerMethodField()
    public_note = serializers.CharField(source="item.public_note", read_only=True)

    class Meta:
        model = Flag
        fields = [
            "id",
            "status",
            "item",
            "cell",
            "reason",
            "proposed_verdict",
            "proposed_quality",
            "explanation",
            "source_url",
            "created_at",
            "status_url",
            "public_note",
        ]

    def get_status_url(self, flag) -> str:
        request = self.context.get("request")
        url = flag.get_absolute_url()
        return request.build_absolute_uri(url) if request else url


_CREATED_AT = serializers.DateTimeField(read_only=True)


def filed_flag_body(flag: Flag, request) -> dict:
    """``FlagSerializer(flag).data`` of a flag just filed, without building the serializer: a
    ModelSerializer builds its fields anew for every instance, a fifth of a submission's time. The
    same keys in the same order (a test compares the two)."""
    item = flag.item
    return {
        "id": flag.pk,
        "status": item.status,
        "item": flag.item_id,
        "cell": flag.cell_id,
        "reason": flag.reason,
        "proposed_verdict": flag.proposed_verdict,
        "proposed_quality": flag.proposed_quality,
        "explanation": flag.explanation,
        "source_url": flag.source_url,
        "created_at": _CREATED_AT.to_representation(flag.created_at),
        "status_url": request.build_absolute_uri(flag.get_absolute_url()),
        "public_note": item.public_note,
    }


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
            "reporters",
            "cell_verdict",
            "cell_version",
            "product",
            "story",
            "version",
        ]


class DecisionSerializer(serializers.Serializer):
    note = NoteField(help_text="Public: shown on the cell's record and to the reporters.")
    version = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=VERSION_MAX,
        help_text="The review item's `version` as read; a decision on a changed item is 409.",
    )
    flags = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        required=False,
        min_length=1,
        max_length=1000,
        help_text="The ids of the item's flags the decision covers (those you read); flags filed "
        "since go to a new pending item. Default: every flag the item holds now.",
    )

    def validate_note(self, value: str) -> str:
        return _checked(lambda note: ModerationDecision(note=note).errors().get("note"), value)

    def moderation_decision(self) -> ModerationDecision:
        data = self.validated_data
        return ModerationDecision(
            note=data["note"],
            item_version=data.get("version"),
            seen_flags=frozenset(data["flags"]) if "flags" in data else None,
            # only the values given: the service completes the rest (None is "no proof")
            correction={name: data[name] for name in JUDGEMENT_FIELDS if name in data},
            cell_version=data.get("cell_version"),
        )


class UpholdSerializer(DecisionSerializer):
    cell_version = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=VERSION_MAX,
        help_text="The cell's `cell_version` as read; a cell edited since is not overwritten (409).",
    )
    verdict = serializers.ChoiceField(choices=Verdict.choices, required=False)
    proof = serializers.ChoiceField(choices=Proof.choices, required=False, allow_null=True)
    quality = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=QUALITY_MAX
    )
    rationale = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=RATIONALE_MAX,
        trim_whitespace=True,
        help_text="The cell's new rationale, written with the correction. Left out or blank, the "
        "old rationale stays, marked as written before the correction when the verdict or "
        "quality changes.",
    )
    accept_source = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Accept the `source_url` of the flags decided on as new evidence of the cell "
        "(source `community`, checked on the day of the decision; 400 when none gives one).",
    )
    evidence_quote = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=EVIDENCE_QUOTE_MAX,
        trim_whitespace=True,
        help_text="The accepted evidence's quote; left out or blank, the flag's explanation.",
    )


class RejectSerializer(DecisionSerializer):
    duplicate = serializers.BooleanField(required=False, default=False)


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
    serializer_class = FlagSerializer
    parser_classes = [SafeJSONParser]

    def get_permissions(self):
        if self.action == "create":
            return [AllowAny()]
        return [IsModerator()]

    def check_permissions(self, request):
        super().check_permissions(request)
        if self.action == "create":
            refuse_cross_site(request)
            require_json(request)

    def get_queryset(self):
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

    def get_serializer_class(self):
        return ModeratorFlagSerializer if self.action in ("list", "retrieve") else FlagSerializer

    @extend_schema(
        request=FlagCreateSerializer,
        responses={201: FlagSerializer, **error_responses(400, 403, 415, 429)},
    )
    def create(self, request, *args, **kwargs):
        with FLAG_SLOTS:  # the whole submission: parsing, the statements, the answer
            return self._create(request)

    def _create(self, request):
        incoming = FlagCreateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        try:
            flag = flag_submit(
                cell=incoming.validated_data["cell"],
                data=incoming.flag_input(),
                client=client_key(request),
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(field_errors(exc)) from None
        except FlagThrottled as exc:
            raise Throttled(wait=exc.retry_after) from None
        return Response(filed_flag_body(flag, request), status=status.HTTP_201_CREATED)

    def _resolve(self, request, body_serializer, decide):
        """Validate the body, then apply ``decide(flag, body)`` once: 404 for no such flag, 400 with
        a message per field, 409 when the item was resolved or changed since it was read."""
        flag = self.get_object()
        body = body_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            decide(flag, body)
        except (AlreadyResolved, EditConflict) as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(field_errors(exc)) from None
        flag = self.get_queryset().get(pk=flag.pk)
        return Response(ModeratorFlagSerializer(flag, context={"request": request}).data)

    @extend_schema(
        request=UpholdSerializer,
        responses={200: ModeratorFlagSerializer, **error_responses(400, 403, 404, 409, 415, 429)},
    )
    @action(detail=True, methods=["post"])
    def uphold(self, request, pk=None):
        return self._resolve(
            request,
            UpholdSerializer,
            lambda flag, body: review_item_uphold(
                item=flag.item,
                moderator=request.user,
                decision=body.moderation_decision(),
                rationale=body.validated_data.get("rationale") or None,
                accept_source=body.validated_data["accept_source"],
                evidence_quote=body.validated_data.get("evidence_quote") or None,
            ),
        )

    @extend_schema(
        request=RejectSerializer,
        responses={200: ModeratorFlagSerializer, **error_responses(400, 403, 404, 409, 415, 429)},
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        return self._resolve(
            request,
            RejectSerializer,
            lambda flag, body: review_item_reject(
                item=flag.item,
                moderator=request.user,
                decision=body.moderation_decision(),
                duplicate=body.validated_data["duplicate"],
            ),
        )
