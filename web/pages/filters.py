"""The matrix's filter form: its menus' options (persona, category, verdict, sort order) and the
"Products shown" checkboxes."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.safestring import SafeString, mark_safe

from arena.models import PersonaResult
from stories.values import Verdict
from web.pages.markup import esc, options
from web.pages.shapes import Keyed, Sluggable


def persona_options(persona_results: Iterable[PersonaResult], selected: str) -> SafeString:
    """The persona options (by slug), ``selected`` the one picked."""
    slugs = [r.persona.slug for r in persona_results]
    return mark_safe(options(zip(slugs, slugs, strict=True), selected))


def category_options(categories: Iterable[Sluggable], selected: str) -> SafeString:
    """The category options (value the slug, label the name)."""
    return mark_safe(options(((c.slug, c.name) for c in categories), selected))


def sort_options(products: Iterable[Sluggable], selected: str) -> SafeString:
    """The "Sort stories by" options: matrix order, then each product shown."""
    choices = [("", "Matrix order"), *((p.slug, f"{p.name}’s verdicts") for p in products)]
    return mark_safe(options(choices, selected))


def verdict_options(selected: str) -> SafeString:
    """The verdict options, ``✓ full`` … ``n/a``."""
    choices = ((v.value, f"{v.symbol} {v.label}" if v.symbol else v.label) for v in Verdict)
    return mark_safe(options(choices, selected).replace("</option><", "</option>\n<"))


def pick_list(products: Iterable[Keyed], shown: Iterable[Keyed]) -> SafeString:
    """The "Products shown" checkboxes: every product, those of ``shown`` checked."""
    picked = {p.pk for p in shown}
    return mark_safe(
        "".join(
            '<li><label><input type="checkbox" form="matrix-filters" name="show"'
            f' value="{esc(p.slug)}"{" checked" if p.pk in picked else ""}> {esc(p.name)}'
            "</label></li>"
            for p in products
        )
    )
