"""Settings, all from the environment (12-factor).

No environment at all gives the embedded profile: SQLite under var/, a file-system Celery
broker (no server), the in-memory channel layer with database polling for live events.
DATABASE_URL and REDIS_URL switch to the services profile: PostgreSQL, Celery over Redis and
channels-redis. Nothing depends on a file name.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("CRUCIBLE_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _secret_key() -> str:
    """SECRET_KEY from the environment; else a random one persisted under var/ (embedded)."""
    if key := os.environ.get("DJANGO_SECRET_KEY"):
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = os.environ.get(
    "DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver,[::1]"
).split(",")
CSRF_TRUSTED_ORIGINS = [
    o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o
]

REDIS_URL = os.environ.get("REDIS_URL", "")
DATABASE_URL = os.environ.get("DATABASE_URL", "")
SERVICES_PROFILE = bool(REDIS_URL and DATABASE_URL)
PROFILE = "services" if SERVICES_PROFILE else "embedded"

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "apps.accounts",
    "apps.catalog",
    "apps.pools",
    "apps.runs",
    "apps.leaderboards",
    "apps.surveys",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "crucible.urls"
WSGI_APPLICATION = "crucible.wsgi.application"
ASGI_APPLICATION = "crucible.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.catalog.context.site",
            ],
        },
    }
]

if DATABASE_URL:
    # No persistent connections by default: under ASGI every request runs in its own short-lived
    # thread, and kept-alive connections pile up until PostgreSQL refuses new clients (seen in
    # bench/load_test.py). Put PgBouncer in front and raise this only for worker processes.
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL,
            conn_max_age=int(os.environ.get("CRUCIBLE_DB_CONN_MAX_AGE", "0")),
            conn_health_checks=True,
        )
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("CRUCIBLE_SQLITE_PATH", str(VAR_DIR / "crucible.sqlite3")),
            # Web server and worker write concurrently: WAL and a generous busy timeout.
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("CRUCIBLE_MEDIA_ROOT", VAR_DIR / "media"))
CRUCIBLE_DATA_DIR = Path(os.environ.get("CRUCIBLE_DATA_DIR", VAR_DIR / "data"))
os.environ.setdefault("CRUCIBLE_DATA_DIR", str(CRUCIBLE_DATA_DIR))
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
CRUCIBLE_MAX_UPLOAD_BYTES = int(os.environ.get("CRUCIBLE_MAX_UPLOAD_BYTES", 200 * 1024 * 1024))
CRUCIBLE_MAX_EXTRACT_BYTES = int(
    os.environ.get("CRUCIBLE_MAX_EXTRACT_BYTES", 20 * CRUCIBLE_MAX_UPLOAD_BYTES)
)

# --- security headers: strict in the services profile (behind TLS), relaxed for localhost ---
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("CRUCIBLE_SECURE_COOKIES", SERVICES_PROFILE and not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SERVICES_PROFILE else None

# --- REST framework ---
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["apps.accounts.permissions.ScopedPermission"],
    "DEFAULT_PAGINATION_CLASS": "apps.catalog.api_common.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "apps.catalog.api_common.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["apps.accounts.throttles.TokenRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"token": os.environ.get("CRUCIBLE_API_RATE", "6000/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Crucible API",
    "DESCRIPTION": "Datasets, models, benchmarks, methods, runs, sweeps and leaderboards.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # The schema and the docs are public (they describe, they do not expose data).
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SECURITY": [{"bearerAuth": []}],
    "APPEND_COMPONENTS": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
}

# --- Celery ---
BROKER_DIR = VAR_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
else:
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CRUCIBLE_EAGER", False)

# --- Channels ---
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# How often a websocket consumer re-reads the event store. In the embedded profile this is the
# wake-up (the in-memory layer does not cross processes); with Redis it is only a safety net.
CRUCIBLE_EVENT_POLL_SECONDS = float(
    os.environ.get("CRUCIBLE_EVENT_POLL_SECONDS", "0.25" if not REDIS_URL else "2.0")
)

# --- execution ---
CRUCIBLE_HEARTBEAT_SECONDS = float(os.environ.get("CRUCIBLE_HEARTBEAT_SECONDS", "5"))
CRUCIBLE_HEARTBEAT_TIMEOUT = float(os.environ.get("CRUCIBLE_HEARTBEAT_TIMEOUT", "30"))
CRUCIBLE_REQUEUE_LOST_RUNS = env_bool("CRUCIBLE_REQUEUE_LOST_RUNS", True)
CRUCIBLE_MAX_ATTEMPTS = int(os.environ.get("CRUCIBLE_MAX_ATTEMPTS", "3"))
# torch threads per run on CPU workers (one run per process).
CRUCIBLE_CPU_THREADS = int(os.environ.get("CRUCIBLE_CPU_THREADS", "1"))
# A queued run dispatched this long ago into an empty queue lost its message: send it again.
CRUCIBLE_RECONCILE_SECONDS = float(os.environ.get("CRUCIBLE_RECONCILE_SECONDS", "60"))
# How long a worker keeps retrying a write while the database is away.
CRUCIBLE_DB_RETRY_SECONDS = float(os.environ.get("CRUCIBLE_DB_RETRY_SECONDS", "120"))
CRUCIBLE_DEFAULT_POOL = os.environ.get("CRUCIBLE_DEFAULT_POOL", "default")
# Model API keys stored in the database are encrypted with this key (Fernet); derived from
# SECRET_KEY when not given so an embedded install works out of the box.
CRUCIBLE_FERNET_KEY = os.environ.get("CRUCIBLE_FERNET_KEY", "")

# Embedder for survey audits and live-survey proposals: "minilm" (the offline MiniLM model)
# or "hashing" (a fast lexical stand-in, used by tests).
SURVEYS_EMBEDDER = os.environ.get("CRUCIBLE_SURVEYS_EMBEDDER", "minilm")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("CRUCIBLE_LOG_LEVEL", "WARNING")},
}
