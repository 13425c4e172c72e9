"""The flags API's bodies: the answers' serializers, and the requests' schema read from the forms
of ``flags.forms`` that validate them."""

from typing import Any

from django import forms
from rest_framework import serializers

from flags.forms import ID_MAX, DecisionForm, FlagForm, FlagIdsField
from flags.models import Flag


def field_of(field: forms.Field) -> serializers.Field:
    """A form field as the schema states it."""
    common: dict[str, Any] = {"required": field.required, "help_text": field.help_text or None}
    if not field.required:
        common["allow_null"] = True
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
DECIDED = ["note", "version", "flags"]
RejectSerializer = body_of(
    "Reject", DecisionForm, DECIDED, duplicate=serializers.BooleanField(required=False)
)
UpholdSerializer = body_of(
    "Uphold", DecisionForm, [*DECIDED, *(n for n in DecisionForm.base_fields if n not in DECIDED)]
)


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
