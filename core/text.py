"""Small text rules shared by the importer, the generator and the pages."""

import functools
import re

from django.core.exceptions import ValidationError
from django.utils.text import slugify

# ---------------------------------------------------------------- the slug rule
#
# A slug is Django's (``django.core.validators.validate_slug``): letters, digits, hyphens and
# underscores, matched against the whole value. A product's slug also has no hyphen-separated word
# ``vs``: the head-to-head address joins two product slugs as ``<a>-vs-<b>`` (web/urls.py),
# and with no ``vs`` word in either slug the joined address has exactly one ``-vs-``, so it names
# one pair and reads back as that pair.
#
# The JSON Schema of the arena file (arena/schemas/) and the database's check constraints state the
# same rule as these patterns (tests check that the schema carries them and that they agree with
# ``slug_problem`` on generated strings). They mean the same in ECMA-262, which JSON Schema
# specifies, in PostgreSQL's regular expressions, and in Python's ``re.search``, which the
# jsonschema library and Django's SQLite ``REGEXP`` use: there ``$`` also matches before a final
# newline, so ``(?!\n)`` after it refuses one.

SLUG_CHARS = "[-a-zA-Z0-9_]+"
SLUG_PATTERN = r"^[-a-zA-Z0-9_]+$(?!\n)"
PRODUCT_SLUG_PATTERN = r"^(?!vs(?:-|$))(?!.*-vs(?:-|$))[-a-zA-Z0-9_]+$(?!\n)"
# The word between the two product slugs of a head-to-head address.
VS = "vs"

_SLUG = re.compile(SLUG_CHARS)


def slug_problem(value: object, *, product: bool = False) -> str | None:
    """Why ``value`` is not a slug (``product``: not a product's slug), or None if it is one."""
    if not isinstance(value, str) or not _SLUG.fullmatch(value):
        return (
            f"{value!r} is not a slug: only letters, digits, hyphens and underscores (no spaces "
            "or line breaks)"
        )
    if product and VS in value.split("-"):
        return (
            f"{value!r} has the word {VS!r} between hyphens, which would make the head-to-head "
            f"address <a>-{VS}-<b> ambiguous"
        )
    return None


def validate_product_slug(value: object) -> None:
    """``Product.slug``'s validator beside the ``SlugField``'s own (``validate_slug``, the same
    characters as ``slug_problem``): the ``vs`` word, so that a form says one thing at a time."""
    if isinstance(value, str) and _SLUG.fullmatch(value):
        problem = slug_problem(value, product=True)
        if problem:
            raise ValidationError(problem, code="invalid", params={"value": value})


# A name or title is one line: it reaches mail subjects, log lines and file names, where a line
# break or another control character would split or jam them (the arena file refuses the same).
_NOT_ONE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def validate_one_line(value: object) -> None:
    """The model validator of every name and title: no line break or other control character."""
    if isinstance(value, str) and (found := _NOT_ONE_LINE.search(value)):
        raise ValidationError(
            "A name is one line: remove the line break or control character U+%(code)04X.",
            code="one_line",
            params={"code": ord(found.group())},
        )


# A ``vs`` word of a name becomes this word in the name's slug (``A vs B`` → ``a-versus-b``).
_VS_IN_SLUG = "versus"


# Pages slugify the same few names (categories, personas) dozens of times per render, and Django's
# slugify (a lazy-aware wrapper, a Unicode normalisation and two regexes) dominates that: kept.
@functools.lru_cache(maxsize=4096)
def arena_slugify(name: str) -> str:
    """Django's slugify, except that a dot becomes a hyphen (``Trigger.dev`` → ``trigger-dev``)
    and a word ``vs`` becomes ``versus`` (``A vs B`` → ``a-versus-b``), so that the slug made of
    any name is a valid product slug (or empty, for a name without letters or digits)."""
    made = slugify(name.replace(".", "-"))
    return "-".join(_VS_IN_SLUG if word == VS else word for word in made.split("-"))


def persona_slug(label: str) -> str:
    """``backend developer`` and ``backend-developer`` are one persona."""
    return re.sub(r"[\s_-]+", "-", label.strip().lower())


_UNITS = (("M", 1_000_000), ("k", 1_000))


_FIGURE = re.compile(r"([0-9]+)(?:(\.[0-9]+)?([kM]))?")
_FIGURE_MAX_CHARS = 30  # far beyond any published figure; keeps float and int conversions cheap


def parse_figure(text: str | None) -> int | None:
    """``23k`` → 23000, ``8.8M`` → 8800000, ``730`` → 730.

    Raises ValueError for anything else (``1.2.3k``, ``1.5`` without a unit, ``-3``, ``1e9``, a number
    of more than 30 characters).
    """
    if not text:
        return None
    if len(text) > _FIGURE_MAX_CHARS:
        raise ValueError(f"a figure of {len(text)} characters is too long")
    m = _FIGURE.fullmatch(text)
    if not m:
        raise ValueError(f"{text!r} is not a figure like 730, 23k or 8.8M")
    whole, fraction, suffix = m.groups()
    if not suffix:
        return int(whole)
    return round(float(whole + (fraction or "")) * dict(_UNITS)[suffix])


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


_RATE = re.compile(r"\s*([0-9]{1,9})\s*/\s*(second|minute|hour|day)\s*")
_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def parse_rate(text: str) -> tuple[int, int]:
    """``10/hour`` → (10, 3600): a count per second, minute, hour or day (``FLAG_RATE``).

    Raises ValueError, naming the accepted form, for anything else."""
    m = _RATE.fullmatch(text or "")
    if not m or int(m.group(1)) < 1:
        raise ValueError(
            f"{text!r} is not a rate like 10/hour (a count of 1 or more per second, minute, hour "
            "or day)"
        )
    return int(m.group(1)), _PERIODS[m.group(2)]


# ---------------------------------------------------------------- source ids
#
# Evidence cites its sources by ids such as ``inngest-docs-7`` or ``docs-21`` (in rationales, and
# sometimes as a quote's source): an optional product prefix, a kind of source, a number. Only
# those kinds count, so ordinary words with a number (``utf-8``, ``gpt-4``) are never read as a
# citation. An arena's source list (``arena.models.Source``) says what each id refers to.
SOURCE_KINDS = ("docs", "gh", "github", "comm", "community", "probe", "blog", "web", "src")
SOURCE_ID_RE = re.compile(
    r"(?<![\w./-])(?:[a-z0-9]+-)*(?:" + "|".join(SOURCE_KINDS) + r")-[0-9]+(?![\w-])"
)


def source_ids(text: str) -> list[str]:
    """The source ids ``text`` cites, each once, in the order they first appear."""
    return list(dict.fromkeys(SOURCE_ID_RE.findall(text)))


def split_source_ids(text: str) -> list[tuple[str, bool]]:
    """``text`` in pieces, each with whether it is a source id: the pages link the ids."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for m in SOURCE_ID_RE.finditer(text):
        if m.start() > at:
            pieces.append((text[at : m.start()], False))
        pieces.append((m.group(), True))
        at = m.end()
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


# Initialisms the published pages spell as a slug turned back into words ("Ai integrations",
# "Api quality"): the pages show them as they are written everywhere else.
_INITIALISMS = {
    w.lower(): w for w in ("AI", "API", "APIs", "SDK", "SDKs", "LLM", "LLMs", "UI", "CLI", "HTTP")
}


def heading_name(text: str) -> str:
    """A heading's name with its initialisms in capitals (``Ai integrations`` → ``AI integrations``);
    words already in capitals, and every other word, as they are."""
    words = text.split(" ")
    return " ".join(
        _INITIALISMS[w.lower()] if w.lower() in _INITIALISMS and w[1:] == w[1:].lower() else w
        for w in words
    )
