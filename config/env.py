"""Reading settings from the environment: the one place the spelling of a value is decided."""

import os
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured


def env[T: (str, int, float, bool)](name: str, default: T) -> T:
    """``name`` as the type of ``default`` (a bool: 1, true, yes or on); unset (or, but for a
    string, empty): ``default``."""
    value: Any = os.environ.get(name)
    if value is None or (not value.strip() and not isinstance(default, str)):
        return default
    if isinstance(default, str):
        return value
    if isinstance(default, bool):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return parsed(name, type(default), value)


def env_list(name: str, default: str) -> list[str]:
    return [v.strip() for v in os.environ.get(name, default).split(",") if v.strip()]


def require(ok: bool, message: str) -> None:
    if not ok:
        raise ImproperlyConfigured(message)


def parsed(name: str, parse: Callable[[str], Any], value: str) -> Any:
    """``parse(value)``; a value it refuses stops every process at start-up, naming ``name``."""
    try:
        return parse(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: {exc}") from None
