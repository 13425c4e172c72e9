"""Stored web addresses are http(s) URIs (RFC 3986), percent-encoded, IDNA hosts; else refused."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models

SCHEMES = ("http", "https")
# what RFC 3986 allows unencoded in a path, and in a query or fragment ("%" starts an escape)
PATH_SAFE = "/:@!$&'()*+,;=%"
QUERY_SAFE = PATH_SAFE + "?"
LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
URI_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
MESSAGE = "Enter a valid http(s) address."


def uri_encode(value: str) -> str:
    """What a URI cannot hold percent-encoded (idempotent); an unsplittable address as it is."""
    value = (value or "").strip()
    # (before splitting: urlsplit silently drops tabs and newlines)
    value = CONTROL.sub(lambda m: f"%{ord(m.group()):02X}", LONE_PERCENT.sub("%25", value))
    try:
        parts = urlsplit(value)
        netloc = parts.netloc
        if not netloc.isascii() and parts.hostname:
            userinfo = netloc.rpartition("@")[0]
            host = parts.hostname.encode("idna").decode("ascii")
            port = f":{parts.port}" if parts.port is not None else ""
            netloc = f"{userinfo}@{host}{port}" if userinfo else f"{host}{port}"
    except (ValueError, UnicodeError):
        return value
    return urlunsplit(
        (
            parts.scheme,
            netloc,
            quote(parts.path, safe=PATH_SAFE),
            quote(parts.query, safe=QUERY_SAFE),
            quote(parts.fragment, safe=QUERY_SAFE),
        )
    )


def uri_problem(value: str) -> str | None:
    """Why ``value`` (as ``uri_encode`` left it) is no http(s) URI, or None."""
    if not value:
        return None
    try:
        URLValidator(schemes=list(SCHEMES))(value)
    except ValidationError:
        return MESSAGE
    return None if URI_CHARS.fullmatch(value) and not LONE_PERCENT.search(value) else MESSAGE


def uri_fixed(value: str) -> str:
    """The address encoded, or empty when it is no http(s) address (a data migration's)."""
    encoded = uri_encode(value)
    return "" if uri_problem(encoded) else encoded


def validate_uri(value: str) -> None:
    if problem := uri_problem(value):
        raise ValidationError(problem, code="invalid")


class URIField(models.URLField):
    """A ``URLField`` (to the migrations too) that encodes on clean and on every save."""

    default_validators = [validate_uri]

    def to_python(self, value: Any) -> Any:
        value = super().to_python(value)
        return uri_encode(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return uri_encode(value) if isinstance(value, str) else value

    def deconstruct(self) -> tuple[Any, Any, Any, Any]:
        name, _, args, kwargs = super().deconstruct()
        return name, "django.db.models.URLField", args, kwargs
