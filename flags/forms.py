"""A visitor's flag and a moderator's decision, each with its rules once: the HTML view, the admin
and the API bind these forms; ``flags.services`` takes them."""

from __future__ import annotations

import contextlib
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, ProhibitNullCharactersValidator

from core.text import clean_text
from core.uris import uri_encode, validate_uri
from flags.models import Flag, Reason
from stories.values import JUDGEMENT_FIELDS, QUALITY_MAX, CellValue, Proof, Verdict

EXPLANATION_MIN, EXPLANATION_MAX = 20, 2000
EMAIL_MAX: int = Flag._meta.get_field("email").max_length  # type: ignore[assignment]
SOURCE_URL_MAX: int = Flag._meta.get_field("source_url").max_length  # type: ignore[assignment]
NOTE_MAX = 2000
ID_MAX = 2**63 - 1  # the largest id a key holds (BigAutoField)
VERSION_MAX = 2**31 - 1  # a version is a PositiveIntegerField
NOTE_MISSING = "Write a public note: it is shown with the decision."
CONTROL_MESSAGE = "Remove the control characters from this field."
SHORT = "Explain what is wrong in at least %(limit_value)d characters (you wrote %(show_value)d)."
LONG = "Keep the explanation under %(limit_value)d characters (you wrote %(show_value)d)."


class CleanTextField(forms.CharField):
    """Text as stored (``clean_text``, stripped): its length bounds count what is kept."""

    def to_python(self, value: Any) -> str:
        value = super().to_python(value)
        ProhibitNullCharactersValidator()(value)  # refused, as every other field does
        return clean_text(value).strip()


class FlagIdsField(forms.Field):
    """Flag ids: a JSON list or ``"3,5,8"``; empty: None (every flag)."""

    def to_python(self, value: Any) -> frozenset[int] | None:
        if value is None or value == "":
            return None
        parts = value if isinstance(value, list) else str(value).split(",")
        ids: frozenset[int] = frozenset()
        with contextlib.suppress(TypeError, ValueError):
            ids = frozenset(int(part) for part in parts if str(part).strip())
        if not ids or not all(0 < i <= ID_MAX for i in ids) or len(ids) > 10_000:
            raise ValidationError("The list of flags on the page is damaged; reload.")
        return ids


def one_line(value: str) -> str:
    """Control characters (tabs and line breaks too) refused in a one-line field, not dropped."""
    if clean_text(value) != value or "\t" in value or "\n" in value:
        raise ValidationError(CONTROL_MESSAGE)
    return value


class FlagForm(forms.Form):
    """A visitor's flag on a cell (the cell's own rules are ``flag_submit``'s)."""

    cell = forms.IntegerField(required=False, min_value=1, max_value=ID_MAX)  # the API's
    reason = forms.ChoiceField(
        choices=Reason.choices,
        widget=forms.RadioSelect,
        error_messages={"required": f"Choose a reason: {', '.join(Reason.values)}."},
    )
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
    explanation = CleanTextField(
        widget=forms.Textarea(attrs={"rows": 4}),
        min_length=EXPLANATION_MIN,
        max_length=EXPLANATION_MAX,
        error_messages={
            "required": SHORT % {"limit_value": EXPLANATION_MIN, "show_value": 0},
            "min_length": SHORT,
            "max_length": LONG,
        },
        help_text=f"What is wrong, and how you know ({EXPLANATION_MIN}–{EXPLANATION_MAX} characters).",
    )
    source_url = forms.CharField(
        label="Source URL (optional)",
        required=False,
        max_length=SOURCE_URL_MAX,
        widget=forms.URLInput,
        help_text="An http(s) address where a moderator can check the claim; a moderator who "
        "upholds the flag may accept it as new evidence of the cell.",
    )
    email = forms.CharField(
        label="Email (optional, never shown)",
        required=False,
        max_length=EMAIL_MAX,
        widget=forms.EmailInput,
        help_text="Only if you want to be reachable by a moderator.",
    )
    # labelled by the template, which names the product
    affiliated = forms.BooleanField(
        required=False,
        help_text="Vendors may flag too: say so, and the moderators weigh your flag knowing it. "
        "The decision's public record says the flag was filed by the vendor.",
    )
    # Honeypot: hidden from people by CSS and aria-hidden; bots fill it in.
    website = forms.CharField(label="Leave this field empty", required=False)

    def clean_website(self) -> str:
        if self.cleaned_data["website"]:
            raise ValidationError("This field must be left empty.")
        return ""

    def clean_source_url(self) -> str:
        value = one_line(self.cleaned_data["source_url"])
        if value and "://" not in value:
            value = f"https://{value}"  # what a person types into the form
        stored = uri_encode(value)
        if len(stored) > SOURCE_URL_MAX:
            raise ValidationError(f"Keep the address under {SOURCE_URL_MAX} characters.")
        try:
            validate_uri(stored) if stored else None
        except ValidationError:
            raise ValidationError("Enter a valid URL.") from None
        return stored

    def clean_email(self) -> str:
        email = one_line(self.cleaned_data["email"])
        if email:
            EmailValidator()(email)  # its message: "Enter a valid email address."
        return email

    def clean(self) -> dict[str, Any]:
        # a quality alone is judged with a verdict that takes any quality; the moderator decides
        data = self.cleaned_data
        flag = Flag(
            proposed_verdict=data.get("proposed_verdict") or "",
            proposed_quality=data.get("proposed_quality"),
        )
        probe = flag.proposal(CellValue(flag.proposed_verdict or Verdict.PARTIAL))
        for name, message in (probe.errors() if probe else {}).items():
            self.add_error(f"proposed_{name}", message)
        return data


def text_field(label: str, limit: int, rows: int, **kwargs: Any) -> CleanTextField:
    return CleanTextField(
        label=label,
        required=False,
        max_length=limit,
        widget=forms.Textarea(attrs={"rows": rows}),
        error_messages={
            "max_length": f"Keep the {label.split()[0].lower()} under {limit} characters."
        },
        **kwargs,
    )


class NoteForm(forms.Form):
    note = CleanTextField(
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=NOTE_MAX,
        label="Public note",
        help_text="Shown on the cell's history and to the reporters.",
        error_messages={
            "required": NOTE_MISSING,
            "max_length": "Keep the note under %(limit_value)d characters.",
        },
    )


class DecisionForm(NoteForm):
    """A moderator's decision. Upholding writes the values sent (proof or quality empty: none;
    left out, or the verdict empty: the proposal's, else the cell's) and checks the versions read."""

    verdict = forms.ChoiceField(choices=Verdict.choices, required=False)
    proof = forms.TypedChoiceField(
        choices=[("", "— none —"), *Proof.choices], required=False, empty_value=None
    )
    quality = forms.IntegerField(min_value=0, max_value=QUALITY_MAX, required=False)
    rationale = text_field(
        "Rationale (edit to rewrite it with the correction)",
        5000,
        8,
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
    evidence_quote = text_field(
        "Evidence quote (optional)",
        2000,
        2,
        help_text="What the accepted source says; left empty, the flag's explanation is quoted.",
    )
    # the item and the cell as the moderator read them: a change meanwhile is not silently undone
    version = forms.IntegerField(
        widget=forms.HiddenInput, required=False, min_value=1, max_value=VERSION_MAX
    )
    cell_version = forms.IntegerField(
        widget=forms.HiddenInput, required=False, min_value=1, max_value=VERSION_MAX
    )
    # the flags on the page when the moderator opened it: the decision covers these only
    flags = FlagIdsField(widget=forms.HiddenInput, required=False)

    def clean_rationale(self) -> str | None:
        """The rationale offered, sent back unchanged or emptied, keeps the old one: None."""
        text = self.cleaned_data["rationale"]
        kept = " ".join(text.split()) == " ".join((self.initial.get("rationale") or "").split())
        return None if kept or not text.strip() else text

    def clean(self) -> dict[str, Any]:
        data = self.cleaned_data
        given = [name for name in JUDGEMENT_FIELDS if name in self.data and name in data]
        data["correction"] = {n: data[n] for n in given if n != "verdict" or data[n]}
        return data
