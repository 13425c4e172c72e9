"""Django's template engine, with each render's context let go as soon as the page is written.

Django keeps a render's context in a reference cycle (the ``RequestContext`` and the
``ContextDict`` that ``make_context`` pushes onto it refer to each other), so everything a page
was rendered from (the arena page's thousands of matrix cells, leaderboard rows, model instances)
outlives the request until the cyclic garbage collector finds it, walking all of it on the way.
Emptying the context's stack once the page is written breaks the cycle: reference counting frees
it at once, and the collector, which ran about one and a half times per uncached arena page, runs
about once, on less (half its time per page). Settings: ``TEMPLATES["BACKEND"]``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template import TemplateDoesNotExist
from django.template.backends import django as backend
from django.template.context import make_context
from django.utils.safestring import SafeString


class DjangoTemplates(backend.DjangoTemplates):
    def from_string(self, template_code: str) -> Template:
        return Template(self.engine.from_string(template_code), self)

    def get_template(self, template_name: str) -> Template:
        try:
            return Template(self.engine.get_template(template_name), self)
        except TemplateDoesNotExist as exc:
            backend.reraise(exc, self)


class Template(backend.Template):
    def render(
        self, context: dict[str, Any] | None = None, request: HttpRequest | None = None
    ) -> SafeString:
        rendering = make_context(context, request, autoescape=self.backend.engine.autoescape)
        try:
            return self.template.render(rendering)
        except TemplateDoesNotExist as exc:
            backend.reraise(exc, self.backend)
        finally:
            rendering.dicts.clear()
