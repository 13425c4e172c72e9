"""What the admins of versioned rows share: a save refused as stale sends the editor back to the
form, stories and products are retired (never deleted), and rows nobody edits by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from core.conflicts import EditConflict, retire_set

REFUSED = "_edit_refused"  # the request's mark: a save of its page was refused


def edit_refused(request: HttpRequest) -> bool:
    return bool(getattr(request, REFUSED, False))


class RefusesStaleSaves(admin.ModelAdmin):
    """A save gone stale after the form's check is reported; the editor goes back to the form."""

    def refuse(self, request: HttpRequest, exc: EditConflict | ValidationError) -> None:
        message = exc.message() if isinstance(exc, EditConflict) else "; ".join(exc.messages)
        self.message_user(request, message, messages.ERROR)
        setattr(request, REFUSED, True)
        # the admin saves the row and its inlines in one transaction: nothing of it is kept
        if transaction.get_connection().in_atomic_block:
            transaction.set_rollback(True)

    def save_forms(self, request: HttpRequest, formset: Any, save: Callable[[Any], None]) -> None:
        """Save each changed form of ``formset`` through ``save``, all or none."""
        changed = [] if edit_refused(request) else [f for f in formset.forms if f.has_changed()]
        new = [f for f in changed if not f.instance.pk]
        try:
            with transaction.atomic():
                for f in changed:
                    save(f)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)
            changed = new = []
        # what the admin's change message reads (formset.save() is not called)
        formset.new_objects = [f.instance for f in new]
        formset.changed_objects = [(f.instance, f.changed_data) for f in changed if f not in new]
        formset.deleted_objects = []
        formset.save_m2m = lambda: None

    def response_change(self, request: HttpRequest, obj: Model) -> HttpResponse:
        if edit_refused(request):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_change(request, obj)

    def log_change(self, request: HttpRequest, obj: Model, message: Any) -> Any:
        if edit_refused(request):
            return None
        return super().log_change(request, obj, message)


class RecordAdmin(RefusesStaleSaves):
    """A story's or a product's admin: through its app's services; retired, never deleted, and it
    stays in its arena."""

    add_service: ClassVar[Callable[..., Any]]
    update_service: ClassVar[Callable[..., Any]]
    actions = ["retire_selected", "restore_selected"]

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        return ["arena", "retired_at"] if obj else ["retired_at"]

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        name = str(self.opts.model_name)  # the services' keyword: story=, product=
        try:
            if not change:
                type(self).add_service(**{name: obj})
                return
            type(self).update_service(
                **{name: type(obj).all_objects.get(pk=obj.pk)},
                changes=form.changes(),
                base_version=form.base_version(),
                base=form.base(),
            )
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)

    def _retire(self, request: HttpRequest, queryset: QuerySet[Any], *, retired: bool) -> None:
        with transaction.atomic():
            done = sum(retire_set(obj, retired=retired) for obj in queryset)
        verb = "Retired" if retired else "Restored"
        self.message_user(request, f"{verb} {done} {self.opts.verbose_name_plural}.")

    @admin.action(description="Retire selected (hide from pages and scores, keep the record)")
    def retire_selected(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        self._retire(request, queryset, retired=True)

    @admin.action(description="Restore selected retired rows")
    def restore_selected(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        self._retire(request, queryset, retired=False)


class ReadOnly:
    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    has_change_permission = has_delete_permission = has_add_permission
