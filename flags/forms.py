"""The visitor's flag form and the moderators' decision forms; the rules are ``flags.inputs``'."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import models

from flags.inputs import (
    EMAIL_MAX,
    EXPLANATION_MAX,
    EXPLANATION_MIN,
    ID_MAX,
    NOTE_MAX,
    SOURCE_URL_MAX,
    FlagInput,
    ModerationDecision,
    explanation_error,
)
from flags.models import Reason
from flags.services import EVIDENCE_QUOTE_MAX, RATIONALE_MAX
from stories.values import QUALITY_MAX, CellValue, Proof, Verdict


class FlagForm(forms.Form):
    reason = forms.ChoiceField(label="Reason", choices=Reason.choices, widget=forms.RadioSelect)
    proposed_verdict = forms.ChoiceField(
        label="Proposed verdict (optional)",
        choices=[("", "— keep as is —"), *Verdict.choices],
        required=False,
    )
    proposed_quality = forms.IntegerField(
        label=f"Proposed quality 0–{QUALITY_MAX} (optional)",
        min_value=0,
        max_value=QUALITY_MAX,
        required=False,
    )
    # the bounds are FlagInput's: these are a browser's hints
    explanation = forms.CharField(
        label="Explanation",
        widget=forms.Textarea(
            attrs={
                "rows": 4,
                "required": True,
                "minlength": EXPLANATION_MIN,
                "maxlength": EXPLANATION_MAX,
            }
        ),
        help_text=f"What is wrong, and how you know ({EXPLANATION_MIN}–{EXPLANATION_MAX} characters).",
        required=False,
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
    # the template names the product in the label (the form does not know the cell)
    affiliated = forms.BooleanField(
        label="I work for or with the product's vendor",
        required=False,
        help_text="Vendors may flag too: say so, and the moderators weigh your flag knowing it. "
        "The decision's public record says the flag was filed by the vendor.",
    )
    # Honeypot: hidden from people by CSS and aria-hidden; bots fill it in.
    website = forms.CharField(label="Leave this field empty", required=False)

    def clean_website(self) -> str:
        if self.cleaned_data.get("website"):
            raise forms.ValidationError("This field must be left empty.")
        return ""

    def clean_explanation(self) -> str:
        # here too, so that the page names it beside the other fields' errors
        if error := explanation_error(self.cleaned_data["explanation"]):
            raise forms.ValidationError(error)
        return self.cleaned_data["explanation"]

    def flag_input(self) -> FlagInput:
        return FlagInput.from_fields(self.cleaned_data)


class Decision(models.TextChoices):
    UPHOLD = "uphold", "Uphold: correct the cell"
    REJECT = "reject", "Reject"
    DUPLICATE = "duplicate", "Mark duplicate"


class BulkRejectForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "required": True, "maxlength": NOTE_MAX}),
        required=False,
        label="Public note",
        help_text="Shown on the cell's history and to the reporters.",
    )

    def clean_note(self) -> str:
        note = self.cleaned_data["note"]
        if error := ModerationDecision(note=note).errors():
            raise forms.ValidationError(error["note"])
        return note


DECISION_MISSING = "Choose a decision: uphold, reject or mark duplicate. Nothing was changed."


class DecisionForm(BulkRejectForm):
    """No decision is preselected: resolving without one is never an uphold."""

    decision = forms.ChoiceField(
        choices=Decision.choices,
        widget=forms.RadioSelect,
        error_messages={"required": DECISION_MISSING},
    )
    verdict = forms.ChoiceField(choices=Verdict.choices, required=False, label="Verdict")
    proof = forms.ChoiceField(
        choices=[("", "— none —"), *Proof.choices], required=False, label="Proof"
    )
    quality = forms.IntegerField(
        min_value=0, max_value=QUALITY_MAX, required=False, label="Quality"
    )
    rationale = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "maxlength": RATIONALE_MAX}),
        required=False,
        max_length=RATIONALE_MAX,
        label="Rationale (edit to rewrite it with the correction)",
        help_text=(
            "Upholding only. Edited, it replaces the cell's rationale, marked as rewritten with "
            "this correction. Left as it is (or emptied), the old rationale stays and is marked "
            "as written before this correction."
        ),
    )
    accept_source = forms.BooleanField(
        required=False,
        label="Accept the flags' source URL as new evidence",
        help_text=(
            "Upholding only. Each source URL the flags give becomes a new evidence quote of the "
            "cell (source “community”, checked today), shown on its proof page with its link."
        ),
    )
    evidence_quote = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": EVIDENCE_QUOTE_MAX}),
        required=False,
        max_length=EVIDENCE_QUOTE_MAX,
        label="Evidence quote (optional)",
        help_text="What the accepted source says; left empty, the flag's explanation is quoted.",
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

    def uphold_texts(self) -> dict[str, Any]:
        """``review_item_uphold``'s texts; the rationale offered, sent back unchanged, is kept."""
        data = self.cleaned_data
        text = (data.get("rationale") or "").strip()
        kept = " ".join(text.split()) == " ".join((self.initial.get("rationale") or "").split())
        return {
            "rationale": None if not text or kept else text,
            "accept_source": bool(data.get("accept_source")),
            "evidence_quote": data.get("evidence_quote") or None,
        }

    def moderation_decision(self) -> ModerationDecision:
        """Upholding writes the proof and quality shown (empty: none), the verdict (empty: offered)."""
        data = self.cleaned_data
        upholding = data["decision"] == Decision.UPHOLD
        shown = CellValue.from_fields(data)
        correction = {"proof": shown.proof, "quality": shown.quality}
        if shown.verdict:
            correction["verdict"] = shown.verdict
        return ModerationDecision(
            note=data["note"],
            item_version=data["version"],
            seen_flags=data["seen_flags"],
            correction=correction if upholding else {},
            cell_version=data["cell_version"] if upholding else None,
        )


def parse_flag_ids(raw: str) -> frozenset[int] | None:
    """``"3,5,8"`` → {3, 5, 8}; empty → None (every flag); anything else is a form error."""
    if not raw.strip():
        return None
    try:
        ids = frozenset(int(part) for part in raw.split(",") if part.strip())
    except ValueError:
        ids = frozenset()
    if not ids or not all(0 < i <= ID_MAX for i in ids):
        raise forms.ValidationError("The list of flags on the page is damaged; reload.")
    return ids
