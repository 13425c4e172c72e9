"""Settings from the environment (docs/settings.md): safe local defaults; DEBUG=0 hardens."""

import ipaddress
import os
import re
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.utils.csp import CSP

from arena.task_names import SWEEP_TASK
from config.env import env, env_list, parsed, require
from core.text import parse_rate
from flags.task_names import DIGEST_TASK, ERASE_TASK, NOTICES_DUE_TASK

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = env("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY") or (
    "django-insecure-local-development-key-only-never-in-production" if DEBUG else ""
)
require(bool(SECRET_KEY), "SECRET_KEY must be set when DEBUG=0")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "config.admin_apps.StaffAdminConfig",  # django.contrib.admin, its site asks for a 2nd factor
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
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
    "web.http.observability.request_observability",  # first: request id, access log, metrics
    # X-Forwarded-* only from our own proxies, before anything reads the scheme (the https redirect)
    "web.http.middleware.request_hygiene",
    "django.middleware.security.SecurityMiddleware",
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
    "config.admin_site.StaffSessionMiddleware",
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
            "libraries": {"discovery": "web.formats.discovery", "markdown": "web.formats.markdown"},
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # a cached page still reads its content version: a new connection would cost more
        conn_max_age=env("CONN_MAX_AGE", 60),
        conn_health_checks=env("CONN_HEALTH_CHECKS", True),
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

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}Validator"}
    for name in ("UserAttributeSimilarity", "MinimumLength", "CommonPassword", "NumericPassword")
]

TIME_ZONE = "UTC"
USE_I18N = False  # English only: no translation looked up for every value shown
STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]

if REDIS_URL := env("REDIS_URL", ""):
    CACHES = {
        "default": {
            "BACKEND": "web.http.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            # fail fast; after a failure the cache serves misses for outage_backoff seconds
            "OPTIONS": {
                "socket_connect_timeout": 0.5,
                "socket_timeout": 0.5,
                "outage_backoff": env("REDIS_OUTAGE_BACKOFF", 2.0),
            },
        }
    }
    CACHES["pages"] = {**CACHES["default"], "KEY_PREFIX": "pages"}
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        # per process: locks and counters; the pages are in web.http.pagecache.recent_pages()
        "pages": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "pages"},
    }
PAGE_CACHE_MEMORY_BYTES = env("PAGE_CACHE_MEMORY_BYTES", 64 * 1024 * 1024)

PAGE_CACHE = env("PAGE_CACHE", True)
CACHE_MAX_AGE = env("CACHE_MAX_AGE", 60)
CACHE_S_MAXAGE = env("CACHE_S_MAXAGE", 300)
CACHE_STALE_WHILE_REVALIDATE = env("CACHE_STALE_WHILE_REVALIDATE", 60)
PAGE_CACHE_LOCAL_BYTES = env("PAGE_CACHE_LOCAL_BYTES", 32 * 1024 * 1024)
# entries expire only to free memory: a change makes a new key
PAGE_CACHE_TIMEOUT = env("PAGE_CACHE_TIMEOUT", 24 * 3600)
PAGE_MISS_RATE = env("PAGE_MISS_RATE", "300/minute")
PAGE_RENDER_LOCK_SECONDS = env("GUNICORN_TIMEOUT", 30) + 5  # (gunicorn kills a longer render)
RELEASE = env("RELEASE", "")

CELERY_BROKER_URL = env("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # workers log through LOGGING, not Celery's root logger
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
        "schedule": timedelta(seconds=env("STALE_SWEEP_SECONDS", 30)),
    },
    # mail still due (its task lost, or the broker down at the commit) and retries; erasure
    "send-due-notices": {
        "task": NOTICES_DUE_TASK,
        "schedule": timedelta(seconds=env("NOTICE_SWEEP_SECONDS", 60)),
    },
    "erase-flag-emails": {"task": ERASE_TASK, "schedule": timedelta(hours=1)},
}

# Django 6.1's MAILERS from the EMAIL_* variables (its EMAIL_* settings are deprecated)
email_host = env("EMAIL_HOST", "")  # lower case: not a (deprecated) setting
MAILERS: dict[str, dict[str, object]] = {
    "default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if DEBUG and not email_host
    else {
        "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "OPTIONS": {
            "host": email_host or "localhost",
            "port": env("EMAIL_PORT", 25),
            "username": env("EMAIL_HOST_USER", ""),
            "password": env("EMAIL_HOST_PASSWORD", ""),
            "use_tls": env("EMAIL_USE_TLS", False),
            "timeout": env("EMAIL_TIMEOUT", 10.0),
        },
    }
}
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "Arena <arena@localhost>")
MODERATOR_NOTICES = env("MODERATOR_NOTICES", "immediate").strip().lower()
MODERATOR_DIGEST_SECONDS = env("MODERATOR_DIGEST_SECONDS", 3600)
NOTICE_MAX_ATTEMPTS = env("NOTICE_MAX_ATTEMPTS", 6)
NOTICE_RETRY_BACKOFF = env("NOTICE_RETRY_BACKOFF", 30.0)
FLAG_EMAIL_RETENTION_DAYS = env("FLAG_EMAIL_RETENTION_DAYS", 30)
require(MODERATOR_NOTICES in ("immediate", "digest"), "MODERATOR_NOTICES is immediate or digest")
if MODERATOR_NOTICES == "digest":
    CELERY_BEAT_SCHEDULE["moderator-digest"] = {
        "task": DIGEST_TASK,
        "schedule": timedelta(seconds=MODERATOR_DIGEST_SECONDS),
    }
require(
    min(NOTICE_MAX_ATTEMPTS, MODERATOR_DIGEST_SECONDS, FLAG_EMAIL_RETENTION_DAYS + 1) >= 1,
    "NOTICE_MAX_ATTEMPTS, MODERATOR_DIGEST_SECONDS: 1 or more",
)

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
        "anon": env("API_ANON_RATE", "600/minute"),
        "user": env("API_USER_RATE", "2000/minute"),
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

AXES_FAILURE_LIMIT = env("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=15)
# wrong passwords from one address cannot lock a moderator out from another
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "web.http.clients.lockout_address"
# in the database, not the cache: a Redis outage does not switch lock-outs off
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"

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
    SECURE_SSL_REDIRECT = env("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]  # probes speak plain HTTP

DEBUG_SITE_404 = env("DEBUG_SITE_404", False)  # the site's 404 with DEBUG on
ARENA_DEFAULT_STORY_WEIGHT = 1  # weight of a story no page gives (docs/importing.md says why)
RECOMPUTE_DEBOUNCE_SECONDS = env("RECOMPUTE_DEBOUNCE_SECONDS", 1.0)
RECOMPUTE_STALE_BUDGET_SECONDS = env("RECOMPUTE_STALE_BUDGET_SECONDS", 600)
FLAG_RATE = env("FLAG_RATE", "10/hour")
EVIDENCE_STALE_DAYS = env("EVIDENCE_STALE_DAYS", 180)
ARENA_IMPORT_MAX_BYTES = env("ARENA_IMPORT_MAX_BYTES", 20971520)  # 20 MiB
DATA_LICENSE_NAME = "CC BY 4.0"
DATA_LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
SITE_URL = env("SITE_URL", "").strip().rstrip("/")
require(
    not SITE_URL or bool(re.fullmatch(r"https?://[^/?#\s]+", SITE_URL)),
    "SITE_URL is an origin: https://host[:port], no path",
)
require(EVIDENCE_STALE_DAYS >= 1, "EVIDENCE_STALE_DAYS must be at least 1")
parsed("FLAG_RATE", parse_rate, FLAG_RATE)
parsed("PAGE_MISS_RATE", parse_rate, PAGE_MISS_RATE or "1/day")
BUNDLED_ARENA_DIR = BASE_DIR / "arena" / "data" / "seeds"

from config.observability import *  # noqa: E402,F403

HTTP_CACHE_PURGE_URLS = env_list("HTTP_CACHE_PURGE_URLS", "")
HTTP_CACHE_PURGE_METHOD = env("HTTP_CACHE_PURGE_METHOD", "PURGE").strip().upper()
HTTP_CACHE_PURGE_TOKEN = env("HTTP_CACHE_PURGE_TOKEN", "")
HTTP_CACHE_PURGE_TIMEOUT = env("HTTP_CACHE_PURGE_TIMEOUT", 3.0)

TRUSTED_PROXIES = env("TRUSTED_PROXIES", 0)  # gunicorn.conf.py reads it too
require(TRUSTED_PROXIES >= 0, "TRUSTED_PROXIES is a count of proxies: 0 or more")
TRUSTED_PROXY_IPS = env_list("TRUSTED_PROXY_IPS", "127.0.0.1,::1")
for entry in TRUSTED_PROXY_IPS:  # an address or a network (10.0.0.0/8)
    parsed("TRUSTED_PROXY_IPS", lambda value: ipaddress.ip_network(value, strict=False), entry)
# Django believes it from anyone: web/http/middleware.py drops it unless our proxy sent it.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")


def admin_url(value: str) -> str:
    """Path segments ending in a slash, never the root (the public site lives there)."""
    value = value.strip().strip("/")
    require(
        bool(re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*", value)),
        f"ADMIN_URL must be a path like 'admin/' or 'backstage-7f3/', not {value!r}",
    )
    return value + "/"


ADMIN_URL = admin_url(env("ADMIN_URL", "admin/"))

STAFF_SESSION_IDLE_HOURS = env("STAFF_SESSION_IDLE_HOURS", 8.0)
require(STAFF_SESSION_IDLE_HOURS > 0, "STAFF_SESSION_IDLE_HOURS must be a positive number of hours")

OTP_TOTP_ISSUER = env("OTP_TOTP_ISSUER", "Arena")
OTP_RECOVERY_CODES = env("OTP_RECOVERY_CODES", 10)
OTP_ADMIN_HIDE_SENSITIVE_DATA = True  # keys, QR and recovery codes are shown once, to their owner
