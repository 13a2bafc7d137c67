"""URL datasets are downloaded once into the data cache and verified by SHA-256 (file:// here)."""

from __future__ import annotations

import hashlib

import pytest

from apps.catalog.models import DatasetVersion
from apps.catalog.services import dataset_version_create_url, dataset_version_fetch

pytestmark = pytest.mark.django_db


def test_download_verifies_checksum(user, tmp_path, settings):
    settings.CRUCIBLE_DATA_DIR = tmp_path / "cache"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    src = tmp_path / "data.csv"
    src.write_bytes(b"a,b\n1,2\n")
    good = hashlib.sha256(src.read_bytes()).hexdigest()
    from apps.pools.models import WorkerPool  # noqa: F401

    version = dataset_version_create_url(name="remote", user=user, url=src.as_uri(), sha256=good)
    fetched = dataset_version_fetch(version_id=version.pk)
    assert fetched.status == "ready" and fetched.content_hash == good and fetched.size_bytes == 8
    wrong = dataset_version_create_url(name="remote2", user=user, url=src.as_uri(), sha256="f" * 64)
    failed = dataset_version_fetch(version_id=wrong.pk)
    assert failed.status == "failed" and "expected sha256" in failed.error
    assert DatasetVersion.objects.get(pk=version.pk).status == "ready", (
        "a failure elsewhere leaves others intact"
    )
