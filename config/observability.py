"""Logs, error reports and metrics settings (docs/operations.md "Logs", "Errors", "Metrics")."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool

LOG_FORMAT = os.environ.get("LOG_FORMAT", "text").strip().lower()
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured("LOG_FORMAT is text or json")
ACCESS_LOG = env_bool("ACCESS_LOG", True)
_LEVEL = os.environ.get("LOG_LEVEL", "WARNING").upper()

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "web.http.requestid.RequestIdFilter"}},
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(levelname)s %(name)s %(message)s %(request_id)s",
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": True,  # ISO 8601, UTC
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": _LEVEL},
    "loggers": {
        # its own level: the access log is on at the default WARNING of everything else
        "arena.access": {"level": "INFO" if ACCESS_LOG else "WARNING"}
    },
}

SENTRY_DSN = os.environ.get("SENTRY_DSN", "").strip()
SENTRY_ENVIRONMENT = os.environ.get("SENTRY_ENVIRONMENT", "") or (
    "development" if env_bool("DEBUG", True) else "production"
)
SENTRY_TRACES_SAMPLE_RATE = float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0"))
if not 0 <= SENTRY_TRACES_SAMPLE_RATE <= 1:
    raise ImproperlyConfigured("SENTRY_TRACES_SAMPLE_RATE is between 0 and 1")
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.integrations.redis import RedisIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        integrations=[DjangoIntegration(), CeleryIntegration(), RedisIntegration()],
        # no cookies, addresses, user names or request bodies leave the site
        send_default_pii=False,
        environment=SENTRY_ENVIRONMENT,
        release=os.environ.get("RELEASE") or None,
        traces_sample_rate=SENTRY_TRACES_SAMPLE_RATE,
    )

METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()
# read by prometheus_client itself; a missing folder fails at start-up, not at the first request
_MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if _MULTIPROC_DIR and not os.path.isdir(_MULTIPROC_DIR):
    raise ImproperlyConfigured(f"PROMETHEUS_MULTIPROC_DIR: no folder {_MULTIPROC_DIR}")
