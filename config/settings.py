"""Settings from the environment (docs/settings.md): safe local defaults; DEBUG=0 hardens."""

import ipaddress
import os
import re
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from arena.task_names import SWEEP_TASK
from config.env import env_bool, env_list, env_trusted_proxies
from core.text import parse_rate
from flags.task_names import DIGEST_TASK, ERASE_TASK, NOTICES_DUE_TASK

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY") or (
    "django-insecure-local-development-key-only-never-in-production" if DEBUG else ""
)
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG=0")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "config.admin_apps.StaffAdminConfig",  # django.contrib.admin, its site asks for a 2nd factor
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.syndication",
    "django.contrib.sitemaps",
    "django_htmx",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "web",
    "arena",
    "products",
    "stories",
    "flags",
    "ops",
]

MIDDLEWARE = [
    "web.http.observability.RequestObservabilityMiddleware",  # first: request id, access log, metrics
    # X-Forwarded-* only from our own proxies, before anything reads the scheme (the https redirect)
    "web.http.middleware.ForwardedHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "web.http.middleware.DropNulFromQueryMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # (Django's GZip randomises lengths against BREACH; CSRF tokens are masked per response)
    "django.middleware.gzip.GZipMiddleware",
    # above sessions, CSRF and authentication, so that a cached page skips them
    "web.http.pagecache.PageCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "web.http.staff.StaffSessionMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    "web.http.middleware.SiteNotFoundMiddleware",  # DEBUG_SITE_404
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # base.html's head: a block rendered once into a variable, and absolute URLs
            "libraries": {
                "discovery": "web.formats.discovery",
                "markdown": "web.formats.markdown.text",
            },
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # a cached page still reads its content version: a new connection would cost more
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=env_bool("CONN_HEALTH_CHECKS", True),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # writers wait for each other; the test database is a file a test's worker process can open
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("TEST_SQLITE_NAME")
        or os.path.join(tempfile.gettempdir(), f"arena-test-{os.getpid()}.sqlite3")
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

TIME_ZONE = "UTC"
STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]

# --- cache: Redis when REDIS_URL is set, else in memory
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "web.http.cache.ResilientRedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            # fail fast; after a failure the cache serves misses for outage_backoff seconds
            "OPTIONS": {
                "socket_connect_timeout": 0.5,
                "socket_timeout": 0.5,
                "outage_backoff": float(os.environ.get("REDIS_OUTAGE_BACKOFF", "2")),
            },
        }
    }
    CACHES["pages"] = {**CACHES["default"], "KEY_PREFIX": "pages"}
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        # per process: keyed by the content version, none serves an old page
        "pages": {
            "BACKEND": "web.http.cache.BoundedLocMemCache",
            "LOCATION": "pages",
            "OPTIONS": {
                "MAX_ENTRIES": int(os.environ.get("PAGE_CACHE_ENTRIES", "500")),
                "max_bytes": int(os.environ.get("PAGE_CACHE_MEMORY_BYTES", str(64 * 1024 * 1024))),
            },
        },
    }

# --- HTTP caching of public pages (docs/operations.md "Caching")
PAGE_CACHE = env_bool("PAGE_CACHE", True)
CACHE_MAX_AGE = int(os.environ.get("CACHE_MAX_AGE", "60"))
CACHE_S_MAXAGE = int(os.environ.get("CACHE_S_MAXAGE", "300"))
CACHE_STALE_WHILE_REVALIDATE = int(os.environ.get("CACHE_STALE_WHILE_REVALIDATE", "60"))
PAGE_CACHE_LOCAL_BYTES = int(os.environ.get("PAGE_CACHE_LOCAL_BYTES", str(32 * 1024 * 1024)))
# entries expire only to free memory: a change makes a new key
PAGE_CACHE_TIMEOUT = int(os.environ.get("PAGE_CACHE_TIMEOUT", str(24 * 3600)))
PAGE_MISS_RATE = os.environ.get("PAGE_MISS_RATE", "300/minute")
RELEASE = os.environ.get("RELEASE", "")

# --- Celery: in-process unless a broker is configured
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
# A dead broker must not hang a web request: fail fast, the periodic sweep catches up later.
CELERY_BROKER_CONNECTION_TIMEOUT = 0.5
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 0.5,
    "socket_timeout": 1,
    "max_retries": 0,
    "visibility_timeout": 600,
}
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BEAT_SCHEDULE = {
    "recompute-stale-arenas": {
        "task": SWEEP_TASK,
        "schedule": timedelta(seconds=int(os.environ.get("STALE_SWEEP_SECONDS", "30"))),
    },
    # mail still due (its task lost, or the broker down at the commit) and retries; erasure
    "send-due-notices": {
        "task": NOTICES_DUE_TASK,
        "schedule": timedelta(seconds=int(os.environ.get("NOTICE_SWEEP_SECONDS", "60"))),
    },
    "erase-flag-emails": {"task": ERASE_TASK, "schedule": timedelta(hours=1)},
}

# --- mail (docs/operations.md "Mail"): Django 6.1's MAILERS from the EMAIL_* variables (its EMAIL_*
# settings are deprecated); the console in development without EMAIL_HOST
email_host = os.environ.get("EMAIL_HOST", "")  # lower case: not a (deprecated) setting
MAILERS: dict[str, dict[str, object]] = {
    "default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if DEBUG and not email_host
    else {
        "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "OPTIONS": {
            "host": email_host or "localhost",
            "port": int(os.environ.get("EMAIL_PORT", "25")),
            "username": os.environ.get("EMAIL_HOST_USER", ""),
            "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
            "use_tls": env_bool("EMAIL_USE_TLS", False),
            "timeout": float(os.environ.get("EMAIL_TIMEOUT", "10")),
        },
    }
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Arena <arena@localhost>")
MODERATOR_NOTICES = os.environ.get("MODERATOR_NOTICES", "immediate").strip().lower()
MODERATOR_DIGEST_SECONDS = int(os.environ.get("MODERATOR_DIGEST_SECONDS", "3600"))
NOTICE_MAX_ATTEMPTS = int(os.environ.get("NOTICE_MAX_ATTEMPTS", "6"))
NOTICE_RETRY_BACKOFF = float(os.environ.get("NOTICE_RETRY_BACKOFF", "30"))
FLAG_EMAIL_RETENTION_DAYS = int(os.environ.get("FLAG_EMAIL_RETENTION_DAYS", "30"))
if MODERATOR_NOTICES not in ("immediate", "digest"):
    raise ImproperlyConfigured("MODERATOR_NOTICES is immediate or digest")
if MODERATOR_NOTICES == "digest":
    CELERY_BEAT_SCHEDULE["moderator-digest"] = {
        "task": DIGEST_TASK,
        "schedule": timedelta(seconds=MODERATOR_DIGEST_SECONDS),
    }
if min(NOTICE_MAX_ATTEMPTS, MODERATOR_DIGEST_SECONDS, FLAG_EMAIL_RETENTION_DAYS + 1) < 1:
    raise ImproperlyConfigured("NOTICE_MAX_ATTEMPTS, MODERATOR_DIGEST_SECONDS: 1 or more")

# --- API
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PARSER_CLASSES": ["web.api.parsers.SafeJSONParser"],
    "EXCEPTION_HANDLER": "web.api.errors.api_exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
    "DEFAULT_THROTTLE_CLASSES": [
        # by client_key; with Redis down they fail open (docs/operations.md, "Outages")
        "web.http.clients.AnonRateThrottle",
        "web.http.clients.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_ANON_RATE", "600/minute"),
        "user": os.environ.get("API_USER_RATE", "2000/minute"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Arena site API",
    "DESCRIPTION": "Evidence-backed comparisons of software products: arenas, matrices, head-to-heads, flags.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # the schema and its docs are the same for everybody: no session read, no Vary: Cookie
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "VerdictEnum": "stories.values.Verdict.choices",
        "ProofEnum": "stories.values.Proof.choices",
        "ReasonEnum": "flags.models.Reason",
        "FlagStatusEnum": "flags.models.Status",
    },
}

# --- login throttling for the admin (django-axes)
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=15)
# by (username, client address): wrong passwords from one address cannot lock a moderator out
# from another
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "web.http.clients.lockout_address"
# in the database, not the cache: a Redis outage does not switch lock-outs off
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_ENABLED = env_bool("AXES_ENABLED", True)

# --- Content Security Policy: no inline style or script but with the nonce (the admin's)
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

if not DEBUG:
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    # probes speak plain HTTP
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

# --- the site's own knobs
DEBUG_SITE_404 = env_bool("DEBUG_SITE_404", False)  # the site's 404 with DEBUG on
ARENA_DEFAULT_STORY_WEIGHT = 1  # weight of a story no page gives (docs/importing.md says why)
RECOMPUTE_DEBOUNCE_SECONDS = float(os.environ.get("RECOMPUTE_DEBOUNCE_SECONDS", "1"))
RECOMPUTE_STALE_BUDGET_SECONDS = int(os.environ.get("RECOMPUTE_STALE_BUDGET_SECONDS", "600"))
FLAG_RATE = os.environ.get("FLAG_RATE", "10/hour")
EVIDENCE_STALE_DAYS = int(os.environ.get("EVIDENCE_STALE_DAYS", "180"))
ARENA_IMPORT_MAX_BYTES = int(os.environ.get("ARENA_IMPORT_MAX_BYTES", "20971520"))  # 20 MiB
DATA_LICENSE_NAME = "CC BY 4.0"
DATA_LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
SITE_URL = os.environ.get("SITE_URL", "").strip().rstrip("/")
if SITE_URL and not re.fullmatch(r"https?://[^/?#\s]+", SITE_URL):
    raise ImproperlyConfigured("SITE_URL is an origin: https://host[:port], no path")
if EVIDENCE_STALE_DAYS < 1:
    raise ImproperlyConfigured("EVIDENCE_STALE_DAYS must be at least 1")
for name, rate in (("FLAG_RATE", FLAG_RATE), ("PAGE_MISS_RATE", PAGE_MISS_RATE or "1/day")):
    try:
        parse_rate(rate)  # a bad value stops every process at start-up
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: {exc}") from exc
BUNDLED_ARENA_DIR = BASE_DIR / "arena" / "data" / "seeds"

from config.observability import *  # noqa: E402,F403

# --- the HTTP cache in front (docs/operations.md "Behind a cache")
HTTP_CACHE_PURGE_URLS = env_list("HTTP_CACHE_PURGE_URLS", "")
HTTP_CACHE_PURGE_METHOD = os.environ.get("HTTP_CACHE_PURGE_METHOD", "PURGE").strip().upper()
HTTP_CACHE_PURGE_TOKEN = os.environ.get("HTTP_CACHE_PURGE_TOKEN", "")
HTTP_CACHE_PURGE_TIMEOUT = float(os.environ.get("HTTP_CACHE_PURGE_TIMEOUT", "3"))

# --- our own reverse proxies, the only ones whose X-Forwarded-* headers are believed
TRUSTED_PROXIES = env_trusted_proxies()
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("TRUSTED_PROXIES is a count of proxies: 0 or more")
TRUSTED_PROXY_IPS = env_list("TRUSTED_PROXY_IPS", "127.0.0.1,::1")
for entry in TRUSTED_PROXY_IPS:
    try:
        ipaddress.ip_network(entry, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXY_IPS: {entry!r} is not an address or network (10.0.0.0/8)"
        ) from None
# Django believes it from anyone: ForwardedHeadersMiddleware drops it unless our proxy sent it.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")


# --- the staff's sign-in: second factor, session lifetime, the admin's address
def admin_url(value: str) -> str:
    """Path segments ending in a slash, never the root (the public site lives there)."""
    value = value.strip().strip("/")
    if not value or not re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*", value):
        raise ImproperlyConfigured(
            f"ADMIN_URL must be a path like 'admin/' or 'backstage-7f3/', not {value!r}"
        )
    return value + "/"


ADMIN_URL = admin_url(os.environ.get("ADMIN_URL", "admin/"))

STAFF_SESSION_IDLE_HOURS = float(os.environ.get("STAFF_SESSION_IDLE_HOURS", "8"))
if STAFF_SESSION_IDLE_HOURS <= 0:
    raise ImproperlyConfigured("STAFF_SESSION_IDLE_HOURS must be a positive number of hours")

OTP_TOTP_ISSUER = os.environ.get("OTP_TOTP_ISSUER", "Arena")
OTP_RECOVERY_CODES = int(os.environ.get("OTP_RECOVERY_CODES", "10"))
# keys, QR codes and recovery codes are shown once, to their owner
OTP_ADMIN_HIDE_SENSITIVE_DATA = True
