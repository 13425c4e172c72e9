"""The visitor's flag form and the moderators' decision forms (the admin's review page and its bulk
reject). They collect and translate; the rules live in flags.inputs and flags.services."""

from __future__ import annotations

from django import forms
from django.db import models

from arena.text import clean_text
from flags.inputs import (
    EMAIL_MAX,
    EXPLANATION_MAX,
    EXPLANATION_MIN,
    NOTE_MAX,
    SOURCE_URL_MAX,
    FlagInput,
    ModerationDecision,
)
from flags.models import Reason
from stories.models import Cell
from stories.values import Proof, Verdict

CONTROL_MESSAGE = "Remove the control characters from this field."


def has_control_characters(text: str) -> bool:
    """C0 and C1 control characters (tab and line breaks included): never part of an address or a
    URL, so one-line fields refuse them rather than drop them."""
    return clean_text(text) != text or "\t" in text or "\n" in text


class FlagForm(forms.Form):
    """Collects a flag; the rules live in ``FlagInput`` and ``flag_submit`` (errors come back per
    field)."""

    reason = forms.ChoiceField(label="Reason", choices=Reason.choices, widget=forms.RadioSelect)
    proposed_verdict = forms.ChoiceField(
        label="Proposed verdict (optional)",
        choices=[("", "— keep as is —"), *Verdict.choices],
        required=False,
    )
    proposed_quality = forms.IntegerField(
        label="Proposed quality 0–10 (optional)", min_value=0, max_value=10, required=False
    )
    explanation = forms.CharField(
        label="Explanation",
        widget=forms.Textarea(
            attrs={"rows": 4, "minlength": EXPLANATION_MIN, "maxlength": EXPLANATION_MAX}
        ),
        help_text=f"What is wrong, and how you know ({EXPLANATION_MIN}–{EXPLANATION_MAX} characters).",
        max_length=EXPLANATION_MAX,
        strip=True,
    )
    source_url = forms.URLField(
        label="Source URL (optional)",
        required=False,
        max_length=SOURCE_URL_MAX,
        assume_scheme="https",
    )
    email = forms.EmailField(
        label="Email (optional, never shown)",
        required=False,
        max_length=EMAIL_MAX,
        help_text="Only if you want to be reachable by a moderator.",
    )
    # Honeypot: hidden from people by CSS and aria-hidden; bots fill it in.
    website = forms.CharField(label="Leave this field empty", required=False)

    def clean_explanation(self):
        # stored and shown as written, less the control characters (never meaningful in a text)
        return clean_text(self.cleaned_data["explanation"]).strip()

    def clean_source_url(self):
        value = self.cleaned_data["source_url"]
        if has_control_characters(value):
            raise forms.ValidationError(CONTROL_MESSAGE)
        return value

    def clean_website(self):
        if self.cleaned_data.get("website"):
            raise forms.ValidationError("This field must be left empty.")
        return ""

    def flag_input(self) -> FlagInput:
        return FlagInput.from_fields(self.cleaned_data)


class Decision(models.TextChoices):
    UPHOLD = "uphold", "Uphold: correct the cell"
    REJECT = "reject", "Reject"
    DUPLICATE = "duplicate", "Mark duplicate"


class DecisionForm(forms.Form):
    """The decision on the admin's review page."""

    decision = forms.ChoiceField(choices=Decision.choices, widget=forms.RadioSelect)
    verdict = forms.ChoiceField(choices=Verdict.choices, required=False, label="Verdict")
    proof = forms.ChoiceField(
        choices=[("", "— none —"), *Proof.choices], required=False, label="Proof"
    )
    quality = forms.IntegerField(min_value=0, max_value=10, required=False, label="Quality")
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=True,
        max_length=NOTE_MAX,
        label="Public note",
        help_text="Shown on the cell's history and to the reporters.",
    )
    version = forms.IntegerField(widget=forms.HiddenInput)
    # the cell as the moderator read it: an edit of the cell meanwhile is not silently undone
    cell_version = forms.IntegerField(
        widget=forms.HiddenInput, required=False, min_value=1, max_value=2**31 - 1
    )
    # the flags on the page when the moderator opened it: the decision covers these only
    seen_flags = forms.CharField(widget=forms.HiddenInput, required=False, max_length=20_000)

    def clean_seen_flags(self) -> frozenset[int] | None:
        return parse_flag_ids(self.cleaned_data.get("seen_flags") or "")

    def moderation_decision(self, *, cell: Cell) -> ModerationDecision:
        """The decision as the services take it; upholding writes every value the page shows
        (a blank verdict keeps the cell's)."""
        data = self.cleaned_data
        uphold = data["decision"] == Decision.UPHOLD
        return ModerationDecision(
            note=data["note"],
            item_version=data["version"],
            seen_flags=data["seen_flags"],
            correction={
                "verdict": data["verdict"] or cell.verdict,
                "proof": data["proof"] or None,
                "quality": data["quality"],
            }
            if uphold
            else {},
            cell_version=data["cell_version"] if uphold else None,
        )


def parse_flag_ids(raw: str) -> frozenset[int] | None:
    """``"3,5,8"`` → {3, 5, 8}; empty → None (every flag); anything else is a form error."""
    if not raw.strip():
        return None
    try:
        ids = frozenset(int(part) for part in raw.split(",") if part.strip())
    except ValueError:
        ids = frozenset()
    if not ids or not all(0 < i < 2**63 for i in ids):
        raise forms.ValidationError("The list of flags on the page is damaged; reload.")
    return ids


class BulkRejectForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=NOTE_MAX, label="Public note"
    )
