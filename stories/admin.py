"""The admin of stories and cells: edits go through the services (a stale form is refused or
merged), the public record of cell changes, and the moderators' "stale evidence" view."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.db.models import F, Model, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator

from core.admin_base import ReadOnly, RecordAdmin, RefusesStaleSaves
from core.conflicts import EditConflict
from core.forms import VersionedForm
from core.moderators import user_can_moderate
from stories import freshness, services
from stories.models import Cell, CellChange, CellQuerySet, Evidence, StaleCell, Story
from stories.values import JUDGEMENT_FIELDS


class CellForm(VersionedForm):
    edit_units = (JUDGEMENT_FIELDS,)
    what = "cell"

    class Meta:
        model = Cell
        fields = ["verdict", "proof", "quality", "rationale"]

    def conflict_detail(self) -> str:
        return self.instance.last_change_note()


class StoryForm(VersionedForm):
    what = "story"

    class Meta:
        model = Story
        fields = ["arena", "category", "subgroup", "persona", "text", "weight", "position"]


def save_cell_form(form: VersionedForm, user: AbstractBaseUser | AnonymousUser) -> None:
    """Only the fields the editor changed, checked against the version they read."""
    services.cell_edit(
        cell=form.instance,
        changes=form.changes(),
        base_version=form.base_version(),
        base=form.base(),
        by=user,
        note=f"Edited in the admin by {user.get_username()}",
    )


@admin.display(description="story", ordering="story__position")
def story_text(obj: Cell) -> str:
    return Truncator(obj.story.text).chars(100)


@admin.display(description="evidence as of", ordering="evidence_as_of")
def evidence_checked(obj: Cell) -> SafeString:
    """The evidence date, with "stale" when it is: a column of cell lists."""
    today, as_of = freshness.today(), obj.evidence_as_of
    stale = freshness.is_stale(obj.verdict, as_of, today=today, days=freshness.stale_days())
    return format_html(
        "{}{} <span>({})</span>",
        "" if as_of is None else f"{as_of:%Y-%m-%d} ",
        "· stale" if stale else "",
        freshness.age_text(as_of, today=today),
    )


class EvidenceInline(admin.TabularInline):
    """Quotes are not deleted: a re-import replaces them."""

    model = Evidence
    extra = 0
    can_delete = False
    fields = ["position", "source", "quote", "url", "checked_on"]
    readonly_fields = ["position", "checked_on"]


class CellChangeInline(ReadOnly, admin.TabularInline):
    """The cell's latest changes, newest first (``history`` links all): a few queries, always."""

    model = CellChange  # every field, read-only
    extra = 0
    shown = 20

    def get_queryset(self, request: HttpRequest) -> QuerySet[CellChange]:
        match, newest = request.resolver_match, ("-changed_at", "-pk")
        cell = str(match.kwargs.get("object_id", "")) if match else ""
        mine = CellChange.objects.filter(
            cell_id=int(cell) if cell.isascii() and cell.isdigit() else 0
        )
        latest = mine.order_by(*newest)[: self.shown].values("pk")
        changes = super().get_queryset(request).select_related("changed_by")
        return changes.filter(pk__in=latest).order_by(*newest)


@admin.register(Cell)
class CellAdmin(RefusesStaleSaves):
    form = CellForm
    list_display = [
        "__str__",
        story_text,
        "product",
        "verdict",
        "proof",
        "quality",
        "detail_published",
        evidence_checked,
    ]
    list_filter = [
        "story__arena",
        "product",
        "verdict",
        "proof",
        "detail_published",
        "story__category",
    ]
    search_fields = ["story__text", "product__name", "rationale"]
    list_select_related = ["story", "product"]
    ordering = ["story__arena", "story__position", "product__position"]
    inlines = [EvidenceInline, CellChangeInline]
    fields = [
        "story",
        "product",
        "verdict",
        "proof",
        "quality",
        "rationale",
        "rationale_predates",
        "rationale_rewritten_at",
        "evidence_as_of",
        "history",
        "read_version",
    ]
    # the marks follow the writes (saving a new rationale clears "predates"); never typed in
    readonly_fields = [
        "story",
        "product",
        "rationale_predates",
        "rationale_rewritten_at",
        "evidence_as_of",
        "history",
    ]

    @admin.display(description="history")
    def history(self, cell: Cell) -> SafeString:
        count, shown = (n := cell.changes.count()), min(n, CellChangeInline.shown)
        url = reverse("admin:stories_cellchange_changelist") + f"?cell__id__exact={cell.pk}"
        text = f"{count} change{'' if count == 1 else 's'}, the latest {shown} below"
        return format_html('{}: <a href="{}">all of them</a>', text, url)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # cells are created with their story or product

    has_delete_permission = has_add_permission

    def save_model(self, request: HttpRequest, obj: Cell, form: Any, change: bool) -> None:
        try:
            save_cell_form(form, request.user)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        def save_quote(quote: Any) -> None:  # checked on the day of the edit, never typed in
            data = quote.cleaned_data
            if quote.instance.pk:
                changes = {n: data.get(n) for n in quote.changed_data}
                services.evidence_update(evidence=quote.instance, changes=changes)
            else:
                quote.instance = services.evidence_add(
                    cell=form.instance, source=data["source"], quote=data["quote"], url=data["url"]
                )

        self.save_forms(request, formset, save_quote)


@admin.register(StaleCell)
class StaleEvidenceAdmin(ReadOnly, admin.ModelAdmin):
    """Judged cells on the pages whose evidence is older than ``EVIDENCE_STALE_DAYS``, the
    heaviest stories first, then the oldest evidence; each links to the cell's edit page."""

    list_display = [
        "cell_link",
        story_text,
        "story__arena",
        "story__weight",
        "value",
        evidence_checked,
    ]
    list_display_links = None
    list_filter = ["story__arena", "story__category", "verdict"]
    search_fields = ["story__text", "product__name"]
    list_select_related = ["story__arena", "product"]
    ordering = [
        "-story__weight",
        F("evidence_as_of").asc(nulls_first=True),
        "story__position",
        "product__position",
    ]
    list_per_page = 100

    def get_queryset(self, request: HttpRequest) -> QuerySet[StaleCell]:
        rule = freshness.stale_q(today=freshness.today(), days=freshness.stale_days())
        return cast(CellQuerySet, super().get_queryset(request)).on_pages().filter(rule)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return user_can_moderate(request.user) or super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return user_can_moderate(request.user) or super().has_view_permission(request, obj)

    @admin.display(description="cell")
    def cell_link(self, obj: StaleCell) -> SafeString:
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:stories_cell_change", args=[obj.pk]),
            f"Edit {obj.product.name}'s cell",
        )


class CellInline(admin.TabularInline):
    model = Cell
    form = CellForm
    extra = 0
    can_delete = False
    fields = ["product", "verdict", "proof", "quality", "rationale", "read_version"]
    readonly_fields = ["product"]

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Cell]:
        return super().get_queryset(request).select_related("product")


@admin.register(Story)
class StoryAdmin(RecordAdmin):
    form = StoryForm
    add_service, update_service = services.story_add, services.story_update
    list_display = [
        "position",
        "text",
        "arena",
        "category",
        "subgroup",
        "persona",
        "weight",
        "weight_published",
        "retired_at",
    ]
    list_display_links = ["text"]
    list_filter = ["arena", "category", "persona", "weight", "weight_published", "retired_at"]
    search_fields = ["text"]
    list_select_related = ["arena", "category", "subgroup", "persona"]
    inlines = [CellInline]

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        self.save_forms(request, formset, lambda f: save_cell_form(f, request.user))


@admin.register(CellChange)
class CellChangeAdmin(ReadOnly, admin.ModelAdmin):
    """The public record of cell changes: append-only."""

    list_display = [
        "changed_at",
        "cell",
        "kind",
        "old_verdict",
        "new_verdict",
        "changed_by",
        "note",
    ]
    list_filter = ["kind", "cell__story__arena"]
    search_fields = ["note", "cell__story__text", "cell__product__name"]
    list_select_related = ["cell", "changed_by"]
