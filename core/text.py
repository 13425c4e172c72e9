"""Small text rules shared by the importer, the generator and the pages."""

import functools
import re

from django.core.exceptions import ValidationError
from django.utils.text import slugify

# A slug is Django's; a product's has no ``vs`` between hyphens, so ``<a>-vs-<b>`` names one pair.
# The patterns read alike in JSON Schema, PostgreSQL and ``re.search`` (``(?!\n)``: no final \n).

SLUG_CHARS = "[-a-zA-Z0-9_]+"
SLUG_PATTERN = r"^[-a-zA-Z0-9_]+$(?!\n)"
PRODUCT_SLUG_PATTERN = r"^(?!vs(?:-|$))(?!.*-vs(?:-|$))[-a-zA-Z0-9_]+$(?!\n)"
VS = "vs"

SLUG = re.compile(SLUG_CHARS)  # what the URL patterns accept as a slug


def slug_problem(value: object, product: bool = False) -> str | None:
    """Why ``value`` is not a slug (``product``: a product's), or None."""
    if not isinstance(value, str) or not SLUG.fullmatch(value):
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
    """The ``vs`` word, beside the ``SlugField``'s own validator (one message at a time)."""
    if isinstance(value, str) and SLUG.fullmatch(value) and (problem := slug_problem(value, True)):
        raise ValidationError(problem, code="invalid", params={"value": value})


# a name reaches mail subjects, log lines and file names, which a line break would split
_NOT_ONE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def validate_one_line(value: object) -> None:
    if isinstance(value, str) and (found := _NOT_ONE_LINE.search(value)):
        raise ValidationError(
            "A name is one line: remove the line break or control character U+%(code)04X.",
            code="one_line",
            params={"code": ord(found.group())},
        )


@functools.lru_cache(maxsize=4096)  # pages slugify the same few names dozens of times per render
def arena_slugify(name: str) -> str:
    """Django's slugify, with a dot as a hyphen and ``vs`` as ``versus``: a valid product slug."""
    made = slugify(name.replace(".", "-"))
    return "-".join("versus" if word == VS else word for word in made.split("-"))


def persona_slug(label: str) -> str:
    """``backend developer`` and ``backend-developer`` are one persona."""
    return re.sub(r"[\s_-]+", "-", label.strip().lower())


_UNITS = {"M": 1_000_000, "k": 1_000}
_FIGURE = re.compile(r"([0-9]+)(?:(\.[0-9]+)?([kM]))?")
_FIGURE_MAX_CHARS = 30  # far beyond any published figure; keeps float and int conversions cheap


def parse_figure(text: str | None) -> int | None:
    """``23k`` → 23000, ``8.8M`` → 8800000, ``730`` → 730; ValueError for anything else."""
    if not text:
        return None
    if len(text) > _FIGURE_MAX_CHARS:
        raise ValueError(f"a figure of {len(text)} characters is too long")
    if not (m := _FIGURE.fullmatch(text)):
        raise ValueError(f"{text!r} is not a figure like 730, 23k or 8.8M")
    whole, fraction, suffix = m.groups()
    return round(float(whole + (fraction or "")) * _UNITS[suffix]) if suffix else int(whole)


def format_figure(value: int | None) -> str:
    """The inverse of ``parse_figure`` for the published figures: 143400 → ``143.4k``."""
    if value is None:
        return ""
    for suffix, factor in _UNITS.items():
        if value >= factor:
            number = f"{value / factor:.1f}".rstrip("0").rstrip(".")
            return f"{number}{suffix}"
    return str(value)


# control characters but tab and newline: XML (the feeds) cannot carry most of them
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """User or imported text as stored: control characters dropped (\\r\\n and \\r become \\n)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


_RATE = re.compile(r"\s*([0-9]{1,9})\s*/\s*(second|minute|hour|day)\s*")
_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def parse_rate(text: str) -> tuple[int, int]:
    """``10/hour`` → (10, 3600); ValueError naming the accepted form for anything else."""
    m = _RATE.fullmatch(text or "")
    if not m or int(m.group(1)) < 1:
        raise ValueError(
            f"{text!r} is not a rate like 10/hour (a count of 1 or more per second, minute, hour "
            "or day)"
        )
    return int(m.group(1)), _PERIODS[m.group(2)]


# Source ids such as ``inngest-docs-7``: only these kinds, so ``utf-8`` or ``gpt-4`` is no citation.
SOURCE_KINDS = ("docs", "gh", "github", "comm", "community", "probe", "blog", "web", "src")
SOURCE_ID_RE = re.compile(
    r"(?<![\w./-])(?:[a-z0-9]+-)*(?:" + "|".join(SOURCE_KINDS) + r")-[0-9]+(?![\w-])"
)


def source_ids(text: str) -> list[str]:
    """The source ids ``text`` cites, each once, in order."""
    return list(dict.fromkeys(SOURCE_ID_RE.findall(text)))


def split_source_ids(text: str) -> list[tuple[str, bool]]:
    """``text`` in pieces, each with whether it is a source id."""
    pieces = re.split(f"({SOURCE_ID_RE.pattern})", text)  # the ids: every other piece
    return [(piece, i % 2 == 1) for i, piece in enumerate(pieces) if piece]


# initialisms the published pages spell as a slug turned back into words ("Ai integrations")
_INITIALISMS = {
    w.lower(): w for w in ("AI", "API", "APIs", "SDK", "SDKs", "LLM", "LLMs", "UI", "CLI", "HTTP")
}


def heading_name(text: str) -> str:
    """``Ai integrations`` → ``AI integrations``; other words as they are."""
    return " ".join(
        _INITIALISMS.get(w.lower(), w) if w[1:] == w[1:].lower() else w for w in text.split(" ")
    )
