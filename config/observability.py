"""Logs, error reports and metrics settings (docs/operations.md "Logs", "Errors", "Metrics")."""

import os

from config.env import env, require

LOG_FORMAT = env("LOG_FORMAT", "text").strip().lower()
require(LOG_FORMAT in ("text", "json"), "LOG_FORMAT is text or json")
ACCESS_LOG = env("ACCESS_LOG", True)

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
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "WARNING").upper()},
    "loggers": {
        # its own level: the access log is on at the default WARNING of everything else
        "arena.access": {"level": "INFO" if ACCESS_LOG else "WARNING"}
    },
}

SENTRY_DSN = env("SENTRY_DSN", "").strip()
SENTRY_ENVIRONMENT = env("SENTRY_ENVIRONMENT", "") or (
    "development" if env("DEBUG", True) else "production"
)
SENTRY_TRACES_SAMPLE_RATE = env("SENTRY_TRACES_SAMPLE_RATE", 0.0)
require(0 <= SENTRY_TRACES_SAMPLE_RATE <= 1, "SENTRY_TRACES_SAMPLE_RATE is between 0 and 1")
if SENTRY_DSN:
    import sentry_sdk

    # (Django's, Celery's and Redis's integrations switch themselves on)
    sentry_sdk.init(
        dsn=SENTRY_DSN,
        # no cookies, addresses, user names or request bodies leave the site
        send_default_pii=False,
        environment=SENTRY_ENVIRONMENT,
        release=os.environ.get("RELEASE") or None,
        traces_sample_rate=SENTRY_TRACES_SAMPLE_RATE,
    )

METRICS_TOKEN = env("METRICS_TOKEN", "").strip()
# read by prometheus_client itself; a missing folder fails at start-up, not at the first request
_MULTIPROC_DIR = env("PROMETHEUS_MULTIPROC_DIR", "")
require(
    not _MULTIPROC_DIR or os.path.isdir(_MULTIPROC_DIR),
    f"PROMETHEUS_MULTIPROC_DIR: no folder {_MULTIPROC_DIR}",
)
