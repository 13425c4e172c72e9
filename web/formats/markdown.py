"""Markdown filters: data text goes through ``md``, ``paragraphs`` or ``url``, never markup."""

import functools
import re
from collections.abc import Sequence
from datetime import date, datetime
from urllib.parse import quote

from django import template

from stories.values import CellValue, Proof, Verdict

register = template.Library()

_INLINE = re.compile(r"([\\`*_\[\]<>|&~#])")  # inline marks in CommonMark / GFM: always escaped
_LEAD = re.compile(r"^([-+=]|\d{1,9}(?=[.)]))")  # starts a list item, underline or ordered item
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")  # control characters, dropped (data has none)


@register.filter("md")
def inline(text: object) -> str:
    """``text`` on one line with every markdown mark escaped."""
    words = _CONTROL.sub("", str(text)).split()
    out = _INLINE.sub(r"\\\1", " ".join(words))
    if (m := _LEAD.match(out)) is not None:
        # ``-`` / ``+`` / ``=`` escaped; ``1.`` becomes ``1\.``
        mark = m.group(1)
        out = f"\\{out}" if not mark[0].isdigit() else f"{mark}\\{out[len(mark) :]}"
    return out


@register.filter
def trusted(text: object) -> str:
    """The site's own markdown (the API schema's), on one line, ``|`` escaped for a table cell."""
    return " ".join(_CONTROL.sub("", str(text)).split()).replace("|", "\\|")


@register.filter
def schema_type(schema: object) -> str:
    """A schema's type in a few characters: ``string (date)``, ``[LeaderboardRow]``, ``a or b``."""
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    for many in ("oneOf", "anyOf", "allOf"):
        if many in schema:
            return " or ".join(schema_type(s) for s in schema[many])
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type", "object")
    if kind == "array":
        return f"[{schema_type(schema.get('items', {}))}]"
    if kind == "object" and "additionalProperties" in schema:
        return f"{{name: {schema_type(schema['additionalProperties'])}}}"
    fmt = schema.get("format")
    return f"{kind} ({fmt})" if fmt else str(kind)


@register.filter
def first_sentence(text: str | None) -> str:
    m = re.match(r"(.+?[.!?])(\s|$)", " ".join((text or "").split()))
    return m.group(1) if m else " ".join((text or "").split())


@register.filter
def paragraphs(text: object, prefix: str = "") -> str:
    """Paragraphs, each escaped as ``inline``, each line after ``prefix`` (``"> "``: a quote)."""
    parts = re.split(r"\n[ \t]*\n", _CONTROL.sub("", str(text)).replace("\r", "\n"))
    lines = [inline(p) for p in parts]
    return f"\n{prefix.rstrip()}\n".join(prefix + line for line in lines if line)


_URL_SAFE = "/:?#@!$&'*+,;=%-._~"


@register.filter
def url(value: str) -> str | None:
    """An http(s) URL fit for a link's destination (what could end it percent-encoded), else None."""
    value = _CONTROL.sub("", value or "").strip()
    if not re.match(r"https?://[^\s/]", value, re.IGNORECASE):
        return None
    value = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", value)  # a lone ``%`` is no escape
    value = re.sub(r"(&#?[A-Za-z0-9]+);", r"\1%3B", value)  # nor is ``&amp;`` an entity here
    return quote(value, safe=_URL_SAFE)


@register.filter
def day(value: date | datetime | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, datetime):
        return f"{value:%Y-%m-%d %H:%M} UTC"
    return f"{value:%Y-%m-%d}"


@register.filter
def score(value: int | None, rng: Sequence[int] | None = None) -> str:
    """``57 (49–61)``: a score out of 100 with its range; ``57`` without one; ``—`` none."""
    if value is None:
        return "—"
    if rng and rng[0] is not None and rng[1] is not None:
        return f"{int(value)} ({int(rng[0])}–{int(rng[1])})"
    return str(int(value))


@register.filter
@functools.lru_cache(maxsize=512)  # (a few dozen values make up a matrix of thousands of cells)
def mark(value: CellValue) -> str:
    """``full T9``: verdict, proof letter and quality out of 10."""
    if not value.applicable:
        return Verdict.NA.value
    return f"{value.verdict} {value.proof_letter}{value.quality}"


@register.simple_tag
def key_text() -> str:
    """What ``mark`` writes, said once per document."""
    proofs = ", ".join(f"{p.letter} {p.value} ({p.meaning})" for p in Proof)
    return (
        "Verdicts are written `<verdict> <proof><quality>`: the verdict (full: clear evidence; "
        "partial: with caveats; disputed: evidence conflicts; none: no evidence found; n/a: the "
        f"story does not apply), the proof level's letter ({proofs}) and the quality out of 10. "
        "Example: `partial C5` is partial, vendor claim only, quality 5/10."
    )
