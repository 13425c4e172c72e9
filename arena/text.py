"""Small text rules shared by the importer, the generator and the pages."""

import re

from django.utils.text import slugify


def arena_slugify(name: str) -> str:
    """Django's slugify, except that a dot becomes a hyphen (``Trigger.dev`` → ``trigger-dev``)."""
    return slugify(name.replace(".", "-"))


def persona_slug(label: str) -> str:
    """``backend developer`` and ``backend-developer`` are one persona."""
    return re.sub(r"[\s_-]+", "-", label.strip().lower())


_UNITS = (("M", 1_000_000), ("k", 1_000))


def parse_figure(text: str | None) -> int | None:
    """``23k`` → 23000, ``8.8M`` → 8800000, ``730`` → 730."""
    if not text:
        return None
    for suffix, factor in _UNITS:
        if text.endswith(suffix):
            return round(float(text[: -len(suffix)]) * factor)
    return int(text)


def format_figure(value: int | None) -> str:
    """The inverse of ``parse_figure`` for the published figures: 143400 → ``143.4k``."""
    if value is None:
        return ""
    for suffix, factor in _UNITS:
        if value >= factor:
            number = f"{value / factor:.1f}".rstrip("0").rstrip(".")
            return f"{number}{suffix}"
    return str(value)


# C0 controls except tab and newline, DEL, and C1 controls: never meaningful in our texts, and XML
# (the Atom feeds) cannot carry most of them.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """User or imported text as stored: control characters dropped (\\r\\n and \\r become \\n)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
