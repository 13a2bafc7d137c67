"""Shared fixtures. The probe plugin is loaded in this process and in any worker a test starts."""

from __future__ import annotations

import os

os.environ.setdefault("CRUCIBLE_PLUGIN_MODULES", "tests.platform.probe_plugin")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Register the plugins once per session (the catalogue is read-mostly)."""
    from apps.catalog.services import catalog_sync_from_registry

    with django_db_blocker.unblock():
        catalog_sync_from_registry()


@pytest.fixture
def synced(db):
    from apps.catalog.models import Benchmark
    from apps.catalog.services import catalog_sync_from_registry

    if not Benchmark.objects.filter(name="probe").exists():  # flushed by a transactional test
        catalog_sync_from_registry()


@pytest.fixture
def user(db):
    from apps.accounts.services import user_create

    return user_create(username="alice", password="alice-password-1")


@pytest.fixture
def staff(db):
    from apps.accounts.services import user_create

    return user_create(
        username="root", password="root-password-1", is_staff=True, is_superuser=True
    )


@pytest.fixture
def api(user, synced):
    """A DRF client authenticated with a read+submit bearer token."""
    from rest_framework.test import APIClient

    from apps.accounts.services import api_token_create

    _, raw = api_token_create(user=user, scopes=["read", "submit"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    client.user = user
    return client


@pytest.fixture
def eager(settings, django_capture_on_commit_callbacks):
    """Execute runs synchronously at commit (no broker); yields a callable wrapping a block."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from crucible.celery import app

    app.conf.task_always_eager = True
    yield django_capture_on_commit_callbacks
    app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _fast_password_hashing(request):
    # PBKDF2's deliberate slowness costs about a second per user in every test. Plugin tests
    # also run Django-free (-p no:django), hence the guard.
    if not request.config.pluginmanager.hasplugin("django"):
        return
    request.getfixturevalue("settings").PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher"
    ]
