"""The admin's form for a versioned row: it remembers what the editor read, so a stale form never
writes back old values."""

from typing import Any, cast

from django import forms
from django.core.validators import MaxValueValidator
from django.http import QueryDict

from core.conflicts import EditConflict
from core.edits import merge_edit

POSITION_MAX = 1_000_000


class VersionedForm(forms.ModelForm):
    """Remembers the version and each value the editor read: ``changes()`` holds only what they
    changed; a stale form is refused and shows the current values (``base_version``/``base()``)."""

    read_version = forms.IntegerField(widget=forms.HiddenInput, required=False)
    edit_units: tuple[tuple[str, ...], ...] = ()
    what = "row"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in self.edit_fields():
            self.fields[name].show_hidden_initial = True
        # the import shifts positions: far from the limit
        if isinstance(position := self.fields.get("position"), forms.IntegerField):
            position.max_value = POSITION_MAX
            position.validators.append(MaxValueValidator(POSITION_MAX))
            position.widget.attrs["max"] = POSITION_MAX
        if self.instance.pk:
            self.fields["read_version"].initial = self.instance.version

    def edit_fields(self) -> list[str]:
        model_fields = {f.name for f in self._meta.model._meta.get_fields()}
        return [n for n in self.fields if n in model_fields]

    @staticmethod
    def normal(name: str, value: Any) -> Any:
        return None if value == "" and name == "proof" else value

    def base(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name in self.edit_fields():
            field = self.fields[name]
            hidden = field.hidden_widget()
            raw = hidden.value_from_datadict(self.data, self.files, self.add_initial_prefix(name))
            try:
                values[name] = self.normal(name, field.to_python(raw))
            except forms.ValidationError:
                values[name] = None
        return values

    def base_version(self) -> int | None:
        return cast(int | None, getattr(self, "cleaned_data", {}).get("read_version"))

    def changes(self) -> dict[str, Any]:
        data: dict[str, Any] = getattr(self, "cleaned_data", {})
        return {
            n: self.normal(n, data.get(n)) for n in self.changed_data if n in self.edit_fields()
        }

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}
        if not self.instance.pk or self.errors or data.get("read_version") == self.instance.version:
            return data
        current = {n: self.normal(n, getattr(self.instance, n, None)) for n in self.edit_fields()}
        _, conflicts = merge_edit(
            base=self.base(), current=current, changes=self.changes(), units=self.edit_units
        )
        if conflicts:  # refused: the form shows the row as it is now
            detail = self.conflict_detail()
            self.add_error(
                None, EditConflict(self.what, conflicts, self.instance, detail).message()
            )
            shown = cast(QueryDict, self.data).copy()
            for name in self.edit_fields():
                value = getattr(self.instance, name)
                value = "" if value is None else str(getattr(value, "pk", value))
                shown[self.add_prefix(name)] = shown[self.add_initial_prefix(name)] = value
            shown[self.add_prefix("read_version")] = str(self.instance.version)
            self.data = shown
        return data

    def conflict_detail(self) -> str:
        return ""
