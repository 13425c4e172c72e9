from django import forms

from stories.models import Cell
from stories.services import cell_check_values


class CellForm(forms.ModelForm):
    """Admin form for a cell: the cell invariants as one message per field, before any write."""

    class Meta:
        model = Cell
        fields = ["verdict", "proof", "quality", "rationale"]

    def clean(self):
        data = super().clean()
        errors = cell_check_values(
            verdict=data.get("verdict") or "",
            proof=data.get("proof") or None,
            quality=data.get("quality"),
        )
        for name, message in errors.items():
            self.add_error(name if name in self.fields else None, message)
        return data
