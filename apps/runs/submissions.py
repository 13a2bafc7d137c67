"""Prediction uploads: a user uploads answers for a (hidden) split; a run scores them
server-side with the benchmark's own scoring, so the ground truth never leaves the server."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage

from apps.catalog.models import Benchmark
from apps.runs.models import Run
from apps.runs.services import run_submit
from workers.core import registry

MAX_PREDICTIONS_BYTES = 50 * 1024 * 1024


def predictions_submit(
    *, user, benchmark: str, uploaded, benchmark_config: dict | None = None, name: str = ""
) -> Run:
    bench = Benchmark.objects.filter(name=benchmark, active=True).first()
    if bench is None:
        raise ValidationError({"benchmark": f"unknown benchmark {benchmark!r}"})
    method = bench.methods.filter(submission_only=True, active=True).first()
    if method is None:
        raise ValidationError(
            {"benchmark": f"benchmark {benchmark!r} does not take prediction uploads"}
        )
    if uploaded is None:
        raise ValidationError(
            {"file": 'upload a predictions file (JSONL: one {"id", "answer"} per line)'}
        )
    if uploaded.size > MAX_PREDICTIONS_BYTES:
        raise ValidationError(
            {"file": f"file is {uploaded.size} bytes; the limit is {MAX_PREDICTIONS_BYTES}"}
        )
    from apps.accounts.services import storage_quota_check

    storage_quota_check(user=user, incoming_bytes=uploaded.size)
    if benchmark_config is not None and not isinstance(benchmark_config, dict):
        raise ValidationError({"benchmark_config": "must be an object"})
    stored = default_storage.save(f"submissions/{uuid.uuid4().hex}.jsonl", uploaded)
    path = Path(settings.MEDIA_ROOT) / stored
    method_cls = registry.get_method(method.name)
    try:
        if hasattr(method_cls, "check_upload"):
            method_cls.check_upload(path)
    except ValueError as exc:
        default_storage.delete(stored)
        raise ValidationError({"file": str(exc)}) from None
    config = {"split": "test", **(benchmark_config or {})}
    try:
        return run_submit(
            user=user,
            benchmark=bench.name,
            method=method.name,
            benchmark_config=config,
            method_config={"predictions_file": str(path)},
            name=name or "uploaded predictions",
            visibility="team",
            allow_submission_only=True,
        )
    except ValidationError:
        default_storage.delete(stored)
        raise
