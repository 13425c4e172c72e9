"""POST /api/flags/ for anyone; listing and resolving for moderators (session login)."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.response import Response

from arena.clients import client_key
from flags.models import Flag, Reason, Status
from flags.services import (
    AlreadyResolved,
    FlagThrottled,
    can_moderate,
    flag_reject,
    flag_submit,
    flag_uphold,
)
from stories.models import Cell, Proof, Verdict


class IsModerator(BasePermission):
    message = "Only moderators may see or resolve flags."

    def has_permission(self, request, view):
        return can_moderate(request.user)


class FlagCreateSerializer(serializers.Serializer):
    cell = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=Reason.values)
    explanation = serializers.CharField(trim_whitespace=True, max_length=5000)
    proposed_verdict = serializers.ChoiceField(
        choices=Verdict.values, required=False, allow_blank=True, allow_null=True
    )
    proposed_quality = serializers.IntegerField(required=False, allow_null=True)
    source_url = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    email = serializers.CharField(required=False, allow_blank=True, max_length=320)


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


class ModeratorFlagSerializer(FlagSerializer):
    reporters = serializers.IntegerField(read_only=True)
    cell_verdict = serializers.CharField(source="cell.verdict", read_only=True)
    product = serializers.CharField(source="cell.product.slug", read_only=True)
    story = serializers.CharField(source="cell.story.text", read_only=True)

    class Meta(FlagSerializer.Meta):
        fields = [*FlagSerializer.Meta.fields, "reporters", "cell_verdict", "product", "story"]


class UpholdSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=Verdict.values, required=False)
    proof = serializers.ChoiceField(choices=Proof.values, required=False, allow_null=True)
    quality = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=10)
    note = serializers.CharField(max_length=2000, allow_blank=True, required=False, default="")


class RejectSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=2000, allow_blank=True, required=False, default="")
    duplicate = serializers.BooleanField(required=False, default=False)


class FlagViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = FlagSerializer

    def get_permissions(self):
        if self.action == "create":
            return [AllowAny()]
        return [IsModerator()]

    def get_queryset(self):
        qs = (
            Flag.objects.select_related("item", "cell__product", "cell__story")
            .annotate(reporters=Count("item__flags__client_hash", distinct=True))
            .order_by("created_at", "pk")
        )
        wanted = self.request.query_params.get("status")
        if wanted in Status.values:
            qs = qs.filter(item__status=wanted)
        return qs

    def get_serializer_class(self):
        return ModeratorFlagSerializer if self.action in ("list", "retrieve") else FlagSerializer

    @extend_schema(request=FlagCreateSerializer, responses={201: FlagSerializer})
    def create(self, request, *args, **kwargs):
        incoming = FlagCreateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        try:
            flag = flag_submit(
                cell=Cell.objects.filter(pk=data["cell"]).first(),
                reason=data["reason"],
                explanation=data["explanation"],
                proposed_verdict=data.get("proposed_verdict") or None,
                proposed_quality=data.get("proposed_quality"),
                source_url=data.get("source_url", ""),
                email=data.get("email", ""),
                client=client_key(request),
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        except FlagThrottled as exc:
            raise Throttled(wait=exc.retry_after) from None
        return Response(
            FlagSerializer(flag, context={"request": request}).data, status=status.HTTP_201_CREATED
        )

    def _resolve(self, request, pk, fn):
        flag = self.get_object()
        try:
            fn(flag)
        except AlreadyResolved as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(
                getattr(exc, "message_dict", {"detail": exc.messages})
            ) from None
        flag = self.get_queryset().get(pk=flag.pk)
        return Response(ModeratorFlagSerializer(flag, context={"request": request}).data)

    @extend_schema(request=UpholdSerializer, responses={200: ModeratorFlagSerializer})
    @action(detail=True, methods=["post"])
    def uphold(self, request, pk=None):
        body = UpholdSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        return self._resolve(
            request,
            pk,
            lambda flag: flag_uphold(
                item=flag.item,
                moderator=request.user,
                note=d.get("note", ""),
                verdict=d.get("verdict"),
                proof=d.get("proof"),
                quality=d.get("quality"),
            ),
        )

    @extend_schema(request=RejectSerializer, responses={200: ModeratorFlagSerializer})
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        body = RejectSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        return self._resolve(
            request,
            pk,
            lambda flag: flag_reject(
                item=flag.item, moderator=request.user, note=d["note"], duplicate=d["duplicate"]
            ),
        )
