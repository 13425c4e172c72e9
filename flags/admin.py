"""The moderators' review queue: pending items oldest first, each with the current cell, the proposed
correction, the number of reporters and the score impact of upholding. Decisions go through
flags.services (resolved exactly once)."""

import threading
from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from flags.models import Flag, ModeratorAction, Reason, ReviewItem, Status
from flags.selectors import review_impact
from flags.services import (
    AlreadyResolved,
    can_moderate,
    flag_reject,
    flag_uphold,
    proposed_correction,
)
from stories.models import Proof, Verdict
from stories.services import EditConflict
from stories.values import CellValue


class StatusFilter(admin.SimpleListFilter):
    """The queue opens on pending items."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [*Status.choices, ("all", "All")]

    def choices(self, changelist):
        value = self.value() or Status.PENDING
        for lookup, title in self.lookup_choices:
            yield {
                "selected": value == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request, queryset):
        value = self.value() or Status.PENDING
        return queryset if value == "all" else queryset.filter(status=value)


class AgeFilter(admin.SimpleListFilter):
    title = "age"
    parameter_name = "age"

    def lookups(self, request, model_admin):
        return [("1", "Under a day"), ("7", "1–7 days"), ("old", "Over a week")]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "1":
            return queryset.filter(created_at__gte=now - timedelta(days=1))
        if self.value() == "7":
            return queryset.filter(
                created_at__lt=now - timedelta(days=1), created_at__gte=now - timedelta(days=7)
            )
        if self.value() == "old":
            return queryset.filter(created_at__lt=now - timedelta(days=7))
        return queryset


class ReasonFilter(admin.SimpleListFilter):
    title = "reason"
    parameter_name = "reason"

    def lookups(self, request, model_admin):
        return Reason.choices

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(flags__reason=self.value()).distinct()
        return queryset


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[
            ("uphold", "Uphold: correct the cell"),
            ("reject", "Reject"),
            ("duplicate", "Mark duplicate"),
        ],
        widget=forms.RadioSelect,
    )
    verdict = forms.ChoiceField(choices=Verdict.choices, required=False, label="Verdict")
    proof = forms.ChoiceField(
        choices=[("", "— none —"), *Proof.choices], required=False, label="Proof"
    )
    quality = forms.IntegerField(min_value=0, max_value=10, required=False, label="Quality")
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=True,
        max_length=2000,
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

    def clean_seen_flags(self) -> set[int] | None:
        return parse_flag_ids(self.cleaned_data.get("seen_flags") or "")


def parse_flag_ids(raw: str) -> set[int] | None:
    """``"3,5,8"`` → {3, 5, 8}; empty → None (every flag); anything else is a form error."""
    if not raw.strip():
        return None
    try:
        ids = {int(part) for part in raw.split(",") if part.strip()}
    except ValueError:
        ids = set()
    if not ids or not all(0 < i < 2**63 for i in ids):
        raise forms.ValidationError("The list of flags on the page is damaged; reload.")
    return ids


class BulkRejectForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=2000, label="Public note"
    )


class FlagInline(admin.TabularInline):
    model = Flag
    extra = 0
    can_delete = False
    fields = [
        "created_at",
        "reason",
        "proposed_verdict",
        "proposed_quality",
        "explanation",
        "source_url",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = [
        "created_at",
        "cell_link",
        "current",
        "proposed",
        "reporter_count",
        "impact",
        "status",
    ]
    list_filter = [StatusFilter, "cell__story__arena", "cell__product", ReasonFilter, AgeFilter]
    search_fields = ["cell__story__text", "cell__product__name", "flags__explanation"]
    ordering = ["created_at", "pk"]
    list_per_page = 50
    actions = ["bulk_reject"]
    change_form_template = "admin/flags/reviewitem/review.html"

    # --- permissions: superusers and the Moderators group
    def has_module_permission(self, request):
        return can_moderate(request.user)

    def has_view_permission(self, request, obj=None):
        return can_moderate(request.user)

    def has_change_permission(self, request, obj=None):
        return can_moderate(request.user)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("cell__story__arena", "cell__product")
            .prefetch_related("flags")
            .annotate(reporters=Count("flags__client_hash", distinct=True))
        )

    _local = threading.local()  # per-request cache of arena inputs for the impact column

    def changelist_view(self, request, extra_context=None):
        self._local.cache = {}
        try:
            return super().changelist_view(request, extra_context)
        finally:
            self._local.cache = {}

    # --- columns
    @admin.display(description="cell")
    def cell_link(self, item):
        return format_html(
            '<a href="{}">{}</a> — {}',
            reverse("admin:flags_reviewitem_change", args=[item.pk]),
            item.cell.product.name,
            item.cell.story.text[:70],
        )

    @admin.display(description="current")
    def current(self, item):
        return CellValue.of(item.cell).label()

    @admin.display(description="proposed")
    def proposed(self, item):
        p = proposed_correction(item)
        return "—" if p is None else p.label()

    @admin.display(description="reporters", ordering="reporters")
    def reporter_count(self, item):
        return item.reporters

    @admin.display(description="impact of upholding")
    def impact(self, item):
        if item.status != Status.PENDING:
            return "—"
        cache = getattr(self._local, "cache", None)
        return str(review_impact(item, cache=cache if cache is not None else {}))

    # --- the review page
    def change_view(self, request, object_id, form_url="", extra_context=None):
        if not can_moderate(request.user):
            raise PermissionDenied
        item = self.get_object(request, unquote(object_id))
        if item is None:  # no such item, or an id that is not a number
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        proposal = proposed_correction(item)
        initial_corr = proposal or CellValue.of(item.cell)
        flags = list(item.flags.all())
        form = DecisionForm(
            request.POST or None,
            initial={
                "verdict": initial_corr.verdict,
                "proof": initial_corr.proof or "",
                "quality": initial_corr.quality,
                "version": item.version,
                "cell_version": item.cell.version,
                "seen_flags": ",".join(str(f.pk) for f in flags),
            },
        )
        if request.method == "POST" and form.is_valid():
            d = form.cleaned_data
            try:
                if d["decision"] == "uphold":
                    flag_uphold(
                        item=item,
                        moderator=request.user,
                        note=d["note"],
                        verdict=d["verdict"] or item.cell.verdict,
                        proof=d["proof"] or None,
                        quality=d["quality"],
                        expected_version=d["version"],
                        seen_flags=d["seen_flags"],
                        expected_cell_version=d["cell_version"],
                    )
                else:
                    flag_reject(
                        item=item,
                        moderator=request.user,
                        note=d["note"],
                        expected_version=d["version"],
                        duplicate=d["decision"] == "duplicate",
                        seen_flags=d["seen_flags"],
                    )
            except (AlreadyResolved, EditConflict) as exc:
                # the page shows the item and the cell as they are now
                self.message_user(request, str(exc), messages.ERROR)
                return HttpResponseRedirect(
                    reverse("admin:flags_reviewitem_change", args=[item.pk])
                )
            except ValidationError as exc:
                for field, errs in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, errs)
            else:
                self.message_user(
                    request,
                    f"Review of {item.cell.product.name}'s cell resolved: {d['decision']}.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:flags_reviewitem_changelist"))
        impact = review_impact(item) if item.status == Status.PENDING else None
        context = {
            **self.admin_site.each_context(request),
            "title": f"Review: {item.cell.product.name} — {item.cell.story.text[:60]}",
            "opts": self.model._meta,
            "item": item,
            "cell": item.cell,
            "flags": flags,
            "proposal": proposal,
            "impact": impact,
            "form": form,
            "actions_log": list(item.actions.select_related("moderator")),
            "has_view_permission": True,
            "original": item,
        }
        return TemplateResponse(request, self.change_form_template, context)

    # --- bulk reject with a note
    @admin.action(description="Reject selected flags (with a public note)")
    def bulk_reject(self, request, queryset):
        if not can_moderate(request.user):
            raise PermissionDenied
        if "apply" in request.POST:
            form = BulkRejectForm(request.POST)
            if form.is_valid():
                done = skipped = 0
                for item in queryset:
                    try:
                        flag_reject(
                            item=item,
                            moderator=request.user,
                            note=form.cleaned_data["note"],
                            seen_flags=parse_flag_ids(request.POST.get(f"seen-{item.pk}", "")),
                        )
                        done += 1
                    except (AlreadyResolved, forms.ValidationError):
                        skipped += 1
                self.message_user(
                    request, f"Rejected {done} item(s); {skipped} were already resolved."
                )
                return None
        else:
            form = BulkRejectForm()
        return TemplateResponse(
            request,
            "admin/flags/reviewitem/bulk_reject.html",
            {
                **self.admin_site.each_context(request),
                "title": "Reject flags",
                "opts": self.model._meta,
                "items": queryset,
                "form": form,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            },
        )


@admin.register(ModeratorAction)
class ModeratorActionAdmin(admin.ModelAdmin):
    list_display = ["created_at", "moderator", "action", "item", "note"]
    list_filter = ["action", "moderator"]
    search_fields = ["note"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_module_permission(self, request):
        return can_moderate(request.user)

    def has_view_permission(self, request, obj=None):
        return can_moderate(request.user)
