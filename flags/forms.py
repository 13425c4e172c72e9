from django import forms

from arena.text import clean_text
from flags.models import Reason
from flags.services import EMAIL_MAX, EXPLANATION_MAX, EXPLANATION_MIN
from stories.models import Verdict

CONTROL_MESSAGE = "Remove the control characters from this field."


def has_control_characters(text: str) -> bool:
    """C0 and C1 control characters (tab and line breaks included): never part of an address or a
    URL, so one-line fields refuse them rather than drop them."""
    return clean_text(text) != text or "\t" in text or "\n" in text


class FlagForm(forms.Form):
    """Collects a flag; the rules live in flags.services.flag_submit (errors come back per field)."""

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
        label="Source URL (optional)", required=False, max_length=500, assume_scheme="https"
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
