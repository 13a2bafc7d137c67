"""Writes for the catalogue: registry sync, dataset versions, model registration."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from apps.catalog.crypto import encrypt_secret
from apps.catalog.models import (
    Benchmark,
    Dataset,
    DatasetVersion,
    Method,
    ModelEntry,
    Paper,
    Visibility,
)
from apps.catalog.uploads import check_upload
from workers.core import registry
from workers.core.papers import Paper as PaperSpec


def _paper_upsert(spec: PaperSpec | None) -> Paper | None:
    if spec is None:
        return None
    paper, _ = Paper.objects.update_or_create(
        key=spec.key,
        defaults={
            "title": spec.title,
            "authors": list(spec.authors),
            "venue": spec.venue,
            "year": spec.year,
            "abstract": spec.abstract,
            "headline_claim": spec.headline_claim,
            "code_url": spec.code_url,
            "url": spec.url,
            "claim": {
                "benchmark": spec.claim_benchmark,
                "method": spec.claim_method,
                "baseline": spec.claim_baseline,
                "metric": spec.claim_metric,
            },
        },
    )
    return paper


@transaction.atomic
def catalog_sync_from_registry() -> dict[str, int]:
    """Mirror the plugin registry into the database (idempotent). Plugins that disappeared
    are marked inactive, never deleted, so their stored runs stay readable."""
    benchmarks = registry.all_benchmarks()
    methods = registry.all_methods()
    for name, cls in benchmarks.items():
        Benchmark.objects.update_or_create(
            name=name,
            defaults={
                "title": cls.title or name,
                "description": cls.description,
                "paper": _paper_upsert(cls.paper),
                "metrics": [m.as_dict() for m in cls.metrics],
                "config_schema": cls.config_schema(),
                "datasets": [
                    {"name": d.name, "kind": d.kind, "description": d.description}
                    for d in cls.datasets
                ],
                "active": True,
            },
        )
    Benchmark.objects.exclude(name__in=benchmarks).update(active=False)
    by_name = {b.name: b for b in Benchmark.objects.filter(name__in=benchmarks)}
    for name, cls in methods.items():
        method, _ = Method.objects.update_or_create(
            name=name,
            defaults={
                "title": cls.title or name,
                "description": cls.description,
                "paper": _paper_upsert(cls.paper),
                "config_schema": cls.config_schema(),
                "is_baseline": cls.is_baseline,
                "requires_model": cls.requires_model,
                "submission_only": cls.submission_only,
                "active": True,
            },
        )
        method.benchmarks.set([by_name[b] for b in cls.benchmarks if b in by_name])
    Method.objects.exclude(name__in=methods).update(active=False)
    from apps.pools.services import pool_get_default

    pool_get_default()
    return {"benchmarks": len(benchmarks), "methods": len(methods)}


_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,119}$")


def _dataset_get_or_create(
    *, name: str, user, description: str, visibility: str, benchmark: str | None
) -> Dataset:
    if not _SLUG.match(name or ""):
        raise ValidationError({"name": "use 1-120 lowercase letters, digits, '-' or '_'"})
    bench = None
    if benchmark:
        bench = Benchmark.objects.filter(name=benchmark).first()
        if bench is None:
            raise ValidationError({"benchmark": f"unknown benchmark {benchmark!r}"})
    dataset, created = Dataset.objects.get_or_create(
        name=name,
        defaults={
            "owner": user,
            "description": description,
            "visibility": visibility,
            "benchmark": bench,
            "team": _personal_team(user),
        },
    )
    if (
        not created
        and user is not None
        and dataset.owner_id not in (None, user.pk)
        and not user.is_staff
    ):
        raise ValidationError({"name": "a dataset with this name belongs to someone else"})
    return dataset


def _personal_team(user):
    if user is None:
        return None
    from apps.accounts.services import team_get_or_create_personal

    return team_get_or_create_personal(user=user)


def _next_version(dataset: Dataset) -> int:
    last = dataset.versions.order_by("-version").values_list("version", flat=True).first()
    return (last or 0) + 1


@transaction.atomic
def dataset_version_create_upload(
    *,
    name: str,
    user,
    uploaded,
    description: str = "",
    visibility: str = Visibility.PUBLIC,
    benchmark: str | None = None,
) -> DatasetVersion:
    """Store an uploaded file as a new version; identical content reuses the last version."""
    if uploaded.size > settings.CRUCIBLE_MAX_UPLOAD_BYTES:
        raise ValidationError(
            {
                "file": f"file is {uploaded.size} bytes; the limit is {settings.CRUCIBLE_MAX_UPLOAD_BYTES}"
            }
        )
    if uploaded.size == 0:
        raise ValidationError({"file": "file is empty"})
    check_upload(uploaded)
    from apps.accounts.services import storage_quota_check

    storage_quota_check(user=user, incoming_bytes=uploaded.size)
    digest = hashlib.sha256()
    for chunk in uploaded.chunks():
        digest.update(chunk)
    content_hash = digest.hexdigest()
    dataset = _dataset_get_or_create(
        name=name, user=user, description=description, visibility=visibility, benchmark=benchmark
    )
    existing = dataset.versions.filter(content_hash=content_hash).first()
    if existing:
        return existing
    uploaded.seek(0)
    version = DatasetVersion(
        dataset=dataset,
        version=_next_version(dataset),
        source=DatasetVersion.Source.UPLOAD,
        content_hash=content_hash,
        size_bytes=uploaded.size,
    )
    safe_name = os.path.basename(uploaded.name or "upload.bin")[:100] or "upload.bin"
    version.file.save(f"{dataset.name}/{content_hash[:16]}/{safe_name}", uploaded, save=False)
    version.full_clean()
    version.save()
    return version


def dataset_version_record(
    *, name: str, content_hash: str, source: str, benchmark: Benchmark
) -> DatasetVersion:
    """The catalogue entry of a dataset a run read (`ctx.record_dataset`): one version per
    content hash, created the first time it is seen."""
    from django.utils.text import slugify

    slug = slugify(name.replace("/", "-").replace(".", "-"))[:120] or "dataset"
    dataset, _ = Dataset.objects.get_or_create(
        name=slug, defaults={"benchmark": benchmark, "description": name}
    )
    version = dataset.versions.filter(content_hash=content_hash).first()
    if version is None:
        kind = (
            DatasetVersion.Source.URL
            if source.startswith(("http://", "https://"))
            else DatasetVersion.Source.SHARED
            if "shared/data" in source
            else DatasetVersion.Source.GENERATOR
        )
        version = DatasetVersion.objects.create(
            dataset=dataset,
            version=_next_version(dataset),
            source=kind,
            content_hash=content_hash,
            path=source[:500],
        )
    return version


@transaction.atomic
def dataset_version_create_url(
    *,
    name: str,
    user,
    url: str,
    sha256: str,
    description: str = "",
    visibility: str = Visibility.PUBLIC,
    benchmark: str | None = None,
) -> DatasetVersion:
    """Register a URL + SHA-256; a worker downloads it once into the data cache."""
    if not re.fullmatch(r"[0-9a-f]{64}", sha256 or ""):
        raise ValidationError({"sha256": "must be 64 lowercase hex characters"})
    if not re.match(r"^(https?|file)://", url or ""):
        raise ValidationError({"url": "must start with http://, https:// or file://"})
    dataset = _dataset_get_or_create(
        name=name, user=user, description=description, visibility=visibility, benchmark=benchmark
    )
    existing = dataset.versions.filter(expected_sha256=sha256).first()
    if existing:
        return existing
    version = DatasetVersion.objects.create(
        dataset=dataset,
        version=_next_version(dataset),
        source=DatasetVersion.Source.URL,
        status=DatasetVersion.Status.PENDING,
        url=url,
        expected_sha256=sha256,
    )
    from workers.tasks import fetch_dataset_version

    transaction.on_commit(
        lambda: fetch_dataset_version.apply_async(
            args=[version.pk], queue="pool." + settings.CRUCIBLE_DEFAULT_POOL
        )
    )
    return version


def dataset_version_fetch(*, version_id: int) -> DatasetVersion:
    """Worker side of a URL dataset: download into CRUCIBLE_DATA_DIR, verify, mark ready."""
    from workers.core.data import fetch_url

    version = DatasetVersion.objects.select_related("dataset").get(pk=version_id)
    dest = (
        Path(settings.CRUCIBLE_DATA_DIR)
        / "downloads"
        / version.expected_sha256
        / (Path(version.url).name or "data")
    )
    try:
        path = fetch_url(version.url, version.expected_sha256, dest)
    except Exception as exc:  # noqa: BLE001 - any failure is recorded on the version for the user
        version.status = DatasetVersion.Status.FAILED
        version.error = str(exc)[:2000]
        version.save(update_fields=["status", "error"])
        return version
    version.status = DatasetVersion.Status.READY
    version.path = str(path)
    version.content_hash = version.expected_sha256
    version.size_bytes = path.stat().st_size
    version.error = ""
    version.save(update_fields=["status", "path", "content_hash", "size_bytes", "error"])
    return version


@transaction.atomic
def dataset_version_create_generator(
    *,
    name: str,
    user,
    params: dict,
    benchmark: str,
    description: str = "",
    visibility: str = Visibility.PUBLIC,
) -> DatasetVersion:
    """A generated dataset is fully determined by (benchmark, params incl. seed): hash those."""
    import json

    if not isinstance(params, dict):
        raise ValidationError({"params": "must be an object"})
    dataset = _dataset_get_or_create(
        name=name, user=user, description=description, visibility=visibility, benchmark=benchmark
    )
    content_hash = hashlib.sha256(
        json.dumps({"benchmark": benchmark, "params": params}, sort_keys=True).encode()
    ).hexdigest()
    existing = dataset.versions.filter(content_hash=content_hash).first()
    if existing:
        return existing
    return DatasetVersion.objects.create(
        dataset=dataset,
        version=_next_version(dataset),
        source=DatasetVersion.Source.GENERATOR,
        content_hash=content_hash,
        params=params,
    )


def model_register(
    *,
    name: str,
    kind: str,
    user=None,
    base_url: str = "",
    model_id: str = "",
    path: str = "",
    api_key: str = "",
    api_key_env: str = "",
    options: dict | None = None,
    description: str = "",
    visibility: str = Visibility.PUBLIC,
) -> ModelEntry:
    errors: dict[str, str] = {}
    if kind not in ModelEntry.Kind.values:
        errors["kind"] = f"must be one of {ModelEntry.Kind.values}"
    if kind == ModelEntry.Kind.OPENAI:
        if not re.match(r"^https?://", base_url or ""):
            errors["base_url"] = "an OpenAI-compatible endpoint needs an http(s) base_url"
        if not model_id:
            errors["model_id"] = "the endpoint's model id is required"
    if kind in (ModelEntry.Kind.HF_LOCAL, ModelEntry.Kind.PROJECT) and not path:
        errors["path"] = "a local model needs its directory path"
    if api_key_env and not re.fullmatch(r"[A-Z_][A-Z0-9_]*", api_key_env):
        errors["api_key_env"] = "must be an environment variable name (A-Z, 0-9, _)"
    if errors:
        raise ValidationError(errors)
    entry = ModelEntry(
        name=name,
        kind=kind,
        base_url=base_url,
        model_id=model_id,
        path=path,
        api_key_env=api_key_env,
        options=options or {},
        description=description,
        visibility=visibility,
        owner=user,
        team=_personal_team(user),
    )
    if api_key:
        entry.api_key_encrypted = encrypt_secret(api_key)
    entry.full_clean()
    entry.save()
    return entry
