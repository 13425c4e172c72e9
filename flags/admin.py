"""The moderators' review queue and review page; decisions go through ``flags.services``."""

from __future__ import annotations

import contextlib
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME, AdminForm
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import ValidationError
from django.db.models import Case, Count, IntegerField, Model, QuerySet, Value, When
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from core.admin_base import ReadOnly
from core.conflicts import EditConflict
from core.moderators import user_can_moderate
from flags import filters, selectors
from flags.forms import DecisionForm, NoteForm
from flags.models import ModeratorAction, ReviewItem, Status
from flags.services import AlreadyResolved, review_item_reject, review_item_uphold
from stories.values import JUDGEMENT_FIELDS, CellValue

EXCERPT_CHARS = 140
UPHOLDING = "When upholding: the corrected cell"
OFFERED = (
    "Offered: the newest flag's proposal, completed from the cell. "
    "Ignored when you reject or mark a duplicate."
)
DECISION_MISSING = "Choose a decision: uphold, reject or mark duplicate. Nothing was changed."
DECISIONS = [
    ("uphold", "Uphold: correct the cell"),
    ("reject", "Reject"),
    ("duplicate", "Mark duplicate"),
]


class ReviewForm(DecisionForm):
    """No decision is preselected: resolving without one is never an uphold."""

    decision = forms.ChoiceField(
        choices=DECISIONS, widget=forms.RadioSelect, error_messages={"required": DECISION_MISSING}
    )

    def admin_form(self) -> AdminForm:
        """Laid out by the admin's own fieldset template: the decision, then an uphold's values."""
        upholding = [f.name for f in self.visible_fields() if f.name not in ("decision", "note")]
        fieldsets: list[tuple[str, dict[str, Any]]] = [
            ("Decision", {"fields": ["decision", "note"]}),
            (UPHOLDING, {"fields": upholding, "description": OFFERED}),
        ]
        return AdminForm(self, fieldsets, {})  # type: ignore[arg-type]  # a plain form works


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """The text's start, cut at a word boundary, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit + 1]
    space = cut.rfind(" ")
    head = cut[:space] if space > 0 else text[:limit]  # one word longer than the limit: cut it
    return head.rstrip(" ,.;:–—-") + "…"


class ReviewChangeList(ChangeList):
    """Rows' impacts of upholding, read per page; by impact, the whole filtered queue is ranked."""

    ranked_impacts: dict[int, selectors.Impact] | None = None

    def get_ordering(self, request: HttpRequest, queryset: QuerySet[Any]) -> list[Any]:
        ordering = super().get_ordering(request, queryset)
        if request.GET.get(filters.SortFilter.parameter_name) != filters.BY_IMPACT:
            return ordering
        ranked, self.ranked_impacts = selectors.pending_by_impact(queryset)
        if not ranked:
            return ordering
        place = Case(  # the ranking's order; resolved items (status "all") after, oldest first
            *(When(pk=pk, then=Value(i)) for i, pk in enumerate(ranked)),
            default=Value(len(ranked)),
            output_field=IntegerField(),
        )
        return [place.asc(), *ordering]

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        rows = list(self.result_list)
        impacts = self.ranked_impacts or selectors.review_item_impacts(rows)
        for row in rows:
            row.upholding_impact = impacts.get(row.pk)
        self.result_list = rows


class ForModerators:
    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return user_can_moderate(request.user)

    has_module_permission = has_view_permission


@admin.register(ReviewItem)
class ReviewItemAdmin(ForModerators, ReadOnly, admin.ModelAdmin):
    list_display = ["age", "cell_link", "flag_summary", "correction", "reporter_count", "impact"]
    list_display_links = None  # the cell column links to the review page
    list_filter = [
        filters.StatusFilter,
        filters.SortFilter,
        ("cell__story__arena", filters.RelatedFilter),
        ("cell__product", filters.ArenaScopedFilter),
        ("cell__story__category", filters.ArenaScopedFilter),
        ("flags__reason", filters.FieldChoicesFilter),
        filters.AgeFilter,
    ]
    search_fields = ["cell__story__text", "cell__product__name", "flags__explanation"]
    list_per_page = 50
    actions = ["bulk_reject"]
    change_form_template = "admin/flags/reviewitem/review.html"

    class Media:
        css = {"all": ["admin/flags/queue.css"]}

    has_change_permission = ForModerators.has_view_permission

    def get_queryset(self, request: HttpRequest) -> QuerySet[ReviewItem]:
        return (
            super()
            .get_queryset(request)
            .select_related("cell__story__arena", "cell__product")
            .prefetch_related("flags")
            .annotate(reporters=Count("flags__client_hash", distinct=True))
        )

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return ReviewChangeList

    @admin.display(description="age", ordering="created_at")
    def age(self, item: ReviewItem) -> SafeString:
        return format_html(
            '<time datetime="{}" title="{}">{}</time>',
            item.created_at.isoformat(),
            item.created_at.strftime("%Y-%m-%d %H:%M"),
            selectors.duration_text(timezone.now() - item.created_at),
        )

    @admin.display(description="cell")
    def cell_link(self, item: ReviewItem) -> SafeString:
        # the whole story, wrapped by queue.css: a story cut mid-word reads as another story
        return format_html(
            '<a href="{}">{}</a> <span class="queue-story">“{}”</span>',
            reverse("admin:flags_reviewitem_change", args=[item.pk]),
            item.cell.product.name,
            item.cell.story.text,
        )

    @admin.display(description="reason: explanation (newest flag)")
    def flag_summary(self, item: ReviewItem) -> str:
        flags = list(item.flags.all())
        if not flags:
            return "—"
        reasons = dict.fromkeys(f.get_reason_display() for f in flags)  # once each
        vendor = sum(f.affiliated for f in flags)
        who = "" if vendor == len(flags) else f"{vendor} of {len(flags)} flags "
        label = '<span class="queue-vendor">{}filed by the vendor</span> ' if vendor else "{}"
        return format_html(  # the flags in their order (created_at, pk): the newest last
            label + '<strong>{}</strong>: <span class="queue-excerpt">{}</span>',
            who if vendor else "",
            ", ".join(reasons),
            excerpt(flags[-1].explanation),
        )

    @admin.display(description="current → proposed")
    def correction(self, item: ReviewItem) -> SafeString:
        proposal = selectors.review_item_proposal(item)
        return format_html(
            "{}<br>→ {}",
            CellValue.of(item.cell).label(),
            "no values proposed" if proposal is None else proposal.label(),
        )

    def get_list_display(self, request: HttpRequest) -> list[Any]:
        # the queue opens on pending items: a status column would repeat "pending" on every row
        shown = request.GET.get(filters.StatusFilter.parameter_name) or Status.PENDING
        return [*self.list_display, *([] if shown == Status.PENDING else ["status"])]

    @admin.display(description="reporters", ordering="reporters")
    def reporter_count(self, item: Any) -> int:
        return int(item.reporters)  # get_queryset's annotation

    @admin.display(description="impact of upholding")
    def impact(self, item: Any) -> str:
        # set by ReviewChangeList; None: resolved, or its product is retired
        return "—" if item.upholding_impact is None else str(item.upholding_impact)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        item = self.get_object(request, unquote(object_id))
        if item is None or not user_can_moderate(request.user):  # Django's own 404 or 403
            return super().change_view(request, object_id, form_url, extra_context)
        proposal = selectors.review_item_proposal(item)
        offered = proposal or CellValue.of(item.cell)
        flags = list(item.flags.all())
        selectors.flag_reporter_records(flags)
        initial = {name: getattr(offered, name) for name in JUDGEMENT_FIELDS}
        initial |= {"rationale": item.cell.rationale, "version": item.version}
        initial |= {"cell_version": item.cell.version, "flags": ",".join(str(f.pk) for f in flags)}
        form = ReviewForm(request.POST or None, initial=initial)
        if not any(f.source_url for f in flags):  # nothing to accept as evidence
            del form.fields["accept_source"], form.fields["evidence_quote"]
        if form.is_bound and form.is_valid():
            chosen = form.cleaned_data["decision"]
            try:
                if chosen == "uphold":
                    review_item_uphold(item=item, moderator=request.user, form=form)
                else:
                    dup = chosen == "duplicate"
                    review_item_reject(item=item, moderator=request.user, form=form, duplicate=dup)
            except (AlreadyResolved, EditConflict) as exc:
                self.message_user(request, str(exc), messages.ERROR)
                return HttpResponseRedirect(request.path)
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, errors)
            else:
                done = f"Review of {item.cell.product.name}'s cell resolved: {chosen}."
                self.message_user(request, done, messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:flags_reviewitem_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Review: {item.cell.product.name} — {excerpt(item.cell.story.text, 60)}",
            "opts": self.opts,
            "item": item,
            "cell": item.cell,
            "flags": flags,
            "proposal": proposal,
            "impact": selectors.review_item_impacts([item]).get(item.pk),
            "form": form,
            "adminform": form.admin_form(),
        }
        return TemplateResponse(request, self.change_form_template, context)

    @admin.action(description="Reject selected flags (with a public note)", permissions=["change"])
    def bulk_reject(
        self, request: HttpRequest, queryset: QuerySet[ReviewItem]
    ) -> HttpResponse | None:
        form = NoteForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            context = {"title": "Reject flags", "opts": self.opts, "items": queryset, "form": form}
            context |= {"action_checkbox_name": ACTION_CHECKBOX_NAME}
            context |= self.admin_site.each_context(request)
            return TemplateResponse(request, "admin/flags/reviewitem/bulk_reject.html", context)
        done = 0
        for item in queryset:
            seen = request.POST.get(f"seen-{item.pk}", "")
            decision = DecisionForm({"note": form.cleaned_data["note"], "flags": seen})
            with contextlib.suppress(AlreadyResolved, ValidationError):
                review_item_reject(item=item, moderator=request.user, form=decision)
                done += 1
        skipped = len(queryset) - done
        self.message_user(request, f"Rejected {done} item(s); {skipped} were already resolved.")
        return None


@admin.register(ModeratorAction)
class ModeratorActionAdmin(ForModerators, ReadOnly, admin.ModelAdmin):
    """The moderators' audit log: append-only."""

    list_display = ["created_at", "moderator", "action", "item", "note"]
    list_filter = ["action", "moderator"]
    search_fields = ["note"]
