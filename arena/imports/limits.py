"""What the database can store, read from the model fields when first asked for, so that what a
reader returns is what the import can write."""

from __future__ import annotations

import functools
from datetime import date
from typing import cast

from django.apps import apps
from django.conf import settings
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Field

from core.text import arena_slugify, parse_figure, slug_problem
from stories import freshness


class LimitError(ValueError):
    """A value the database would refuse; the message says which field and why."""


# A count that is not stored still has to be an int we can convert and compare cheaply.
ANY_COUNT_MAX = 2**31 - 1

# The longest texts the database would store unbounded (text columns): a rationale is a few
# paragraphs, a quote one passage. The schema's maxLength states the same (a test compares them).
TEXT_LIMITS = {"Arena.description": 5_000, "Cell.rationale": 20_000, "Evidence.quote": 5_000}


def read_bytes(path: str) -> bytes:
    """The file's bytes; one over ``ARENA_IMPORT_MAX_BYTES`` is refused before it is read whole."""
    limit = settings.ARENA_IMPORT_MAX_BYTES
    with open(path, "rb") as f:
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise LimitError(
            f"file is larger than {limit} bytes (ARENA_IMPORT_MAX_BYTES); nothing of it is read"
        )
    return raw


def future_problem(day: date | None) -> str | None:
    """Why ``day`` cannot be claimed: it is after today (the server's date), so it would outrank
    a moderator's decision made today; None for a day up to today."""
    today = freshness.today()
    if day is None or day <= today:
        return None
    return f"{day:%Y-%m-%d} is after today ({today:%Y-%m-%d}); a file cannot be dated in the future"


def _model_field(label: str) -> Field:
    """The field of ``"Model.field"``: the model is one of the apps' (its name is unique)."""
    model, name = label.split(".")
    found = next(m for m in apps.get_models() if m.__name__ == model)._meta.get_field(name)
    return cast(Field, found)


@functools.cache
def max_length(label: str) -> int:
    """``max_length("Product.name")`` → the model field's max_length."""
    length = _model_field(label).max_length
    if length is None:
        raise LookupError(f"{label} has no max_length")
    return length


@functools.cache
def max_value(label: str) -> int:
    """The largest value an integer model field holds on every database Django supports."""
    internal = _model_field(label).get_internal_type()
    return BaseDatabaseOperations.integer_field_ranges[internal][1]


def clip(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[:size] + "…"


def short(text: str, size: int = 40) -> str:
    """``text`` quoted for a message, cut after ``size`` characters."""
    return repr(clip(text, size))


def fit(label: str, what: str, text: str) -> str:
    """``text`` if it fits the model field ``label`` (or the ``TEXT_LIMITS`` of a text column)."""
    limit = TEXT_LIMITS.get(label) or max_length(label)
    if len(text) > limit:
        raise LimitError(
            f"{what} {short(text)} is {len(text)} characters long; at most {limit} fit ({label})"
        )
    return text


def number(digits: str, what: str, maximum: int = ANY_COUNT_MAX) -> int:
    """ASCII digits as an int no larger than ``maximum`` (a huge digit run is refused before any
    conversion: Python refuses int() of more than 4300 digits, and the columns hold far fewer)."""
    significant = digits.lstrip("0") or "0"
    if len(significant) > len(str(maximum)) or int(significant) > maximum:
        raise LimitError(f"{what} {short(digits, 20)} is larger than {maximum}")
    return int(significant)


def slug(label: str, what: str, name: str) -> str:
    """The site's slug of ``name``, which must not be empty and must fit ``label``."""
    made = arena_slugify(name)
    if not made:
        raise LimitError(f"{what} {short(name)} has no letters or digits to make a URL slug of")
    # (a made slug always passes: the guard keeps the importer on the one rule if slugify changes)
    if problem := slug_problem(made, product=True):
        raise LimitError(f"{what} {short(name)} gives a slug that is refused: {problem}")
    limit = max_length(label)
    if len(made) > limit:
        raise LimitError(
            f"{what} {short(name)} gives a slug of {len(made)} characters; "
            f"at most {limit} fit ({label})"
        )
    return made


def figure(label: str, shown: str) -> int:
    """A popularity figure as shown (``★ 23k``), as ``parse_figure`` will store it in ``label``."""
    try:
        value = parse_figure(shown.split(" ", 1)[1])
    except ValueError as exc:
        raise LimitError(f"popularity figure {short(shown)}: {exc}") from None
    if value is None:
        raise LimitError(f"popularity figure {short(shown)} has no number")
    limit = max_value(label)
    if value > limit:
        raise LimitError(f"popularity figure {short(shown)} is larger than {limit} ({label})")
    return value
