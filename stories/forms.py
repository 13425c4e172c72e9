from typing import Any

from core.forms import VersionedForm
from stories.models import Cell, Story
from stories.values import JUDGEMENT_FIELDS, CellValue


class CellForm(VersionedForm):
    """The cell's rules as one message per field, before any write."""

    edit_units = (JUDGEMENT_FIELDS,)
    what = "cell"

    class Meta:
        model = Cell
        fields = ["verdict", "proof", "quality", "rationale"]

    def conflict_detail(self) -> str:
        return self.instance.last_change_note()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        errors = CellValue(
            data.get("verdict") or "", data.get("proof") or None, data.get("quality")
        ).errors()
        for name, message in errors.items():
            if name in self.fields and name not in self.errors:
                self.add_error(name, message)
        return data


class StoryForm(VersionedForm):
    what = "story"

    class Meta:
        model = Story
        fields = ["arena", "category", "subgroup", "persona", "text", "weight", "position"]
