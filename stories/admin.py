from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from flags.selectors import user_can_moderate
from stories import freshness
from stories.conflicts import EditConflict
from stories.forms import CellForm, StoryForm
from stories.models import Cell, CellChange, Evidence, StaleCell, Story
from stories.services import cell_edit, evidence_add, evidence_update
from stories.story_services import story_add, story_retire, story_update


def save_cell_form(form, user) -> list[str]:
    """Route an admin edit of a cell through the services: only the fields the editor changed,
    checked against the version they read (validation, record, recomputation)."""
    return cell_edit(
        cell=form.instance,
        changes=form.changes(),
        base_version=form.base_version(),
        base=form.base(),
        by=user,
        note=f"Edited in the admin by {user.get_username()}",
    )


class RefusesStaleSaves:
    """A save that a concurrent edit made stale between the form's check and the write (the
    services check again under a row lock) is reported, and the editor goes back to the form."""

    def refuse(self, request, exc: Exception) -> None:
        message = exc.message() if isinstance(exc, EditConflict) else "; ".join(exc.messages)
        self.message_user(request, message, messages.ERROR)
        request._edit_refused = True
        # the admin saves the row and its inlines in one transaction: nothing of it is kept
        if transaction.get_connection().in_atomic_block:
            transaction.set_rollback(True)

    def response_change(self, request, obj):
        if getattr(request, "_edit_refused", False):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_change(request, obj)

    def log_change(self, request, obj, message):
        if getattr(request, "_edit_refused", False):
            return None
        return super().log_change(request, obj, message)


class RetireActions:
    """Stories and products are retired, never deleted: their cells carry flags, decisions and the
    public record. Retired rows are hidden from the pages and the scores."""

    retire_service = None
    actions = ["retire_selected", "restore_selected"]

    def has_delete_permission(self, request, obj=None):
        return False

    def _retire(self, request, queryset, retired: bool) -> None:
        done = sum(
            type(self).retire_service(**{self.opts.model_name: obj}, retired=retired)
            for obj in queryset
        )
        verb = "Retired" if retired else "Restored"
        self.message_user(request, f"{verb} {done} {self.opts.verbose_name_plural}.")

    @admin.action(description="Retire selected (hide from pages and scores, keep the record)")
    def retire_selected(self, request, queryset):
        self._retire(request, queryset, True)

    @admin.action(description="Restore selected retired rows")
    def restore_selected(self, request, queryset):
        self._retire(request, queryset, False)


class EvidenceInline(admin.TabularInline):
    """A cell's evidence quotes: added or edited here, each is checked on the day of the edit
    (``checked_on``, set by ``evidence_add`` / ``evidence_update``, never typed in), and the
    cell's ``evidence_as_of`` follows. Quotes are not deleted: a re-import replaces them."""

    model = Evidence
    extra = 0
    fields = ["position", "source", "quote", "url", "checked_on"]
    readonly_fields = ["position", "checked_on"]

    def has_delete_permission(self, request, obj=None):
        return False


class CellChangeInline(admin.TabularInline):
    model = CellChange
    extra = 0
    can_delete = False
    fields = [
        "changed_at",
        "kind",
        "old_verdict",
        "old_quality",
        "new_verdict",
        "new_quality",
        "changed_by",
        "note",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Cell)
class CellAdmin(RefusesStaleSaves, admin.ModelAdmin):
    form = CellForm
    list_display = [
        "__str__",
        "story_text",
        "product",
        "verdict",
        "proof",
        "quality",
        "detail_published",
        "evidence_checked",
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
        "read_version",
    ]
    # the marks follow the writes (saving a new rationale clears "predates"); never typed in
    readonly_fields = [
        "story",
        "product",
        "rationale_predates",
        "rationale_rewritten_at",
        "evidence_as_of",
    ]

    @admin.display(description="story", ordering="story__position")
    def story_text(self, obj):
        return obj.story.text[:80]

    def has_add_permission(self, request):
        return False  # cells exist for every product × story; they are created with them

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="evidence as of", ordering="evidence_as_of")
    def evidence_checked(self, obj):
        return evidence_age_html(obj)

    def save_model(self, request, obj, form, change):
        try:
            save_cell_form(form, request.user)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Evidence:
            return super().save_formset(request, form, formset, change)
        added = [f for f in formset.forms if not f.instance.pk and f.has_changed()]
        edited = [f for f in formset.forms if f.instance.pk and f.has_changed()]
        if getattr(request, "_edit_refused", False):
            added, edited = [], []
        try:
            with transaction.atomic():
                for f in added:
                    data = f.cleaned_data
                    f.instance = evidence_add(
                        cell=form.instance,
                        source=data["source"],
                        quote=data["quote"],
                        url=data.get("url") or "",
                    )
                for f in edited:
                    evidence_update(
                        evidence=f.instance,
                        changes={n: f.cleaned_data.get(n) for n in f.changed_data},
                    )
        except ValidationError as exc:
            self.refuse(request, exc)
            added, edited = [], []
        formset.new_objects = [f.instance for f in added]
        formset.changed_objects = [(f.instance, f.changed_data) for f in edited]
        formset.deleted_objects = []
        formset.save_m2m = lambda: None


def evidence_age_html(cell) -> str:
    """A cell's evidence date and age, with "stale" when it is (stories/freshness.py)."""
    today = freshness.today()
    as_of = cell.evidence_as_of
    text = freshness.age_text(freshness.age_days(as_of, today=today))
    stale = freshness.is_stale(cell.verdict, as_of, today=today, days=freshness.stale_days())
    return format_html(
        "{}{} <span>({})</span>",
        "" if as_of is None else f"{as_of:%Y-%m-%d} ",
        "· stale" if stale else "",
        text,
    )


@admin.register(StaleCell)
class StaleEvidenceAdmin(admin.ModelAdmin):
    """The moderators' "stale evidence" view: the judged cells on the pages whose evidence is older
    than ``EVIDENCE_STALE_DAYS``, the heaviest stories first (they move scores most), then the
    oldest evidence. Each row links to the cell's edit page (add a quote, re-judge it)."""

    list_display = [
        "cell_link",
        "story_text",
        "arena",
        "weight",
        "verdict_label",
        "checked",
    ]
    list_display_links = None  # the cell column links to the cell's edit page
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

    def get_queryset(self, request):
        rule = freshness.stale_q(today=freshness.today(), days=freshness.stale_days())
        return super().get_queryset(request).on_pages().filter(rule)

    def has_module_permission(self, request):
        return user_can_moderate(request.user) or super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return user_can_moderate(request.user) or super().has_view_permission(request, obj)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # edited on the cell's own page

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="cell")
    def cell_link(self, obj):
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:stories_cell_change", args=[obj.pk]),
            f"Edit {obj.product.name}'s cell",
        )

    @admin.display(description="story", ordering="story__position")
    def story_text(self, obj):
        return obj.story.text[:100]

    @admin.display(description="arena", ordering="story__arena__name")
    def arena(self, obj):
        return obj.story.arena.name

    @admin.display(description="weight", ordering="-story__weight")
    def weight(self, obj):
        return obj.story.weight

    @admin.display(description="verdict")
    def verdict_label(self, obj):
        return obj.value.label()

    @admin.display(description="evidence as of", ordering="evidence_as_of")
    def checked(self, obj):
        return evidence_age_html(obj)


class CellInline(admin.TabularInline):
    model = Cell
    form = CellForm
    extra = 0
    can_delete = False
    fields = ["product", "verdict", "proof", "quality", "rationale", "read_version"]
    readonly_fields = ["product"]
    ordering = ["product__position"]

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("product")


@admin.register(Story)
class StoryAdmin(RetireActions, RefusesStaleSaves, admin.ModelAdmin):
    form = StoryForm
    retire_service = story_retire
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
    ordering = ["arena", "position"]
    inlines = [CellInline]

    def get_readonly_fields(self, request, obj=None):
        return ["arena", "retired_at"] if obj else ["retired_at"]

    def save_model(self, request, obj, form, change):
        try:
            if not change:
                story_add(story=obj)
                return
            story_update(
                story=Story.all_objects.get(pk=obj.pk),
                changes=form.changes(),
                base_version=form.base_version(),
                base=form.base(),
            )
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Cell:
            return super().save_formset(request, form, formset, change)
        changed = [f for f in formset.forms if f.instance.pk and f.has_changed()]
        if getattr(request, "_edit_refused", False):
            changed = []
        try:
            with transaction.atomic():
                for cell_form in changed:
                    save_cell_form(cell_form, request.user)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)
            changed = []
        # what the admin's change message reads (formset.save() is not called)
        formset.new_objects, formset.deleted_objects = [], []
        formset.changed_objects = [(f.instance, f.changed_data) for f in changed]
        formset.save_m2m = lambda: None


@admin.register(CellChange)
class CellChangeAdmin(admin.ModelAdmin):
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

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # the record is append-only

    def has_delete_permission(self, request, obj=None):
        return False
