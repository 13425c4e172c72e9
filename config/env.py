"""Reading settings from the environment: the one place the spelling of a boolean or a list is decided."""

import os


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [v.strip() for v in os.environ.get(name, default).split(",") if v.strip()]


def env_trusted_proxies() -> int:
    """How many reverse proxies of our own stand in front of the app (``TRUSTED_PROXIES``;
    ``TRUST_X_FORWARDED_FOR=1`` is its deprecated spelling of 1). Read by the settings and by
    gunicorn.conf.py, which listens on loopback by default when it is above 0."""
    deprecated = 1 if env_bool("TRUST_X_FORWARDED_FOR", False) else 0
    return int(os.environ.get("TRUSTED_PROXIES") or deprecated)
