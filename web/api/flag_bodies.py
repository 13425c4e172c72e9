"""The flags API's request and response bodies: ``flags.inputs``' rules, stated in the schema."""

from typing import TYPE_CHECKING, Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

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
)
from flags.models import Flag, Reason
from flags.services import EVIDENCE_QUOTE_MAX, RATIONALE_MAX
from stories.values import JUDGEMENT_FIELDS, QUALITY_MAX, Proof, Verdict

if TYPE_CHECKING:
    # django-stubs' helper types: a dev dependency, not installed in production
    from django_stubs_ext import StrOrPromise

VERSION_MAX = 2**31 - 1  # a version is a PositiveIntegerField


def quality_field() -> serializers.IntegerField:
    return serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=QUALITY_MAX
    )


@extend_schema_field({"type": "string", "minLength": EXPLANATION_MIN, "maxLength": EXPLANATION_MAX})
class ExplanationField(serializers.CharField):
    """Checked here too, so that a 400 names it beside the other fields' errors."""

    def __init__(self, **kwargs: Any) -> None:
        blank: dict[str, StrOrPromise] = {"blank": explanation_error("") or ""}
        super().__init__(error_messages=blank, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        if error := explanation_error(value):
            raise serializers.ValidationError(error)
        return value


@extend_schema_field({"type": "string", "minLength": 1, "maxLength": NOTE_MAX})
class NoteField(serializers.CharField):
    def __init__(self, **kwargs: Any) -> None:
        missing: dict[str, StrOrPromise] = {
            "required": NOTE_MISSING,
            "null": NOTE_MISSING,
            "blank": NOTE_MISSING,
        }
        super().__init__(error_messages=missing, **kwargs)


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false``, not the ``1`` or ``"yes"`` DRF's BooleanField takes too."""

    default_error_messages = {"invalid": "Send true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class FlagCreateSerializer(serializers.Serializer):
    """A flag on a cell's verdict. The rest (the cell is on the pages, a proposal makes a valid
    cell, one pending flag per client and cell) is checked on submission, a message per field."""

    cell = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    reason = serializers.ChoiceField(choices=Reason.choices)
    explanation = ExplanationField()
    proposed_verdict = serializers.ChoiceField(
        choices=Verdict.choices, required=False, allow_blank=True, allow_null=True
    )
    proposed_quality = quality_field()
    source_url = serializers.URLField(
        required=False,
        allow_blank=True,
        max_length=SOURCE_URL_MAX,
        help_text="An http(s) address where a moderator can check the claim; a moderator who "
        "upholds the flag may accept it as new evidence of the cell.",
    )
    email = serializers.EmailField(required=False, allow_blank=True, max_length=EMAIL_MAX)
    affiliated = StrictBooleanField(
        required=False,
        default=False,
        help_text="`true`: the reporter works for or with the product's vendor. Moderators see "
        "it, and the decision's public record says the flag was filed by the vendor.",
    )

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
            "affiliated",
        ]

    def get_status_url(self, flag: Flag) -> str:
        request = self.context.get("request")
        url = flag.get_absolute_url()
        return request.build_absolute_uri(url) if request else url


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
    quality = quality_field()
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
