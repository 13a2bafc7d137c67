"""Worker side of a run: claim at most once, execute with heartbeats, record everything."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import traceback
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from apps.catalog.crypto import decrypt_secret
from apps.catalog.models import ModelEntry
from apps.pools.models import Worker
from apps.runs.context import DjangoRunContext, RunSuperseded
from apps.runs.dbretry import with_db_retry
from apps.runs.events import event_append
from apps.runs.models import MetricPoint, Run, RunStatus
from apps.runs.services import run_finish
from workers.core import registry
from workers.core.context import RunCancelled, seed_everything

log = logging.getLogger(__name__)

TRACKED_PACKAGES = (
    "torch",
    "numpy",
    "scipy",
    "scikit-learn",
    "transformers",
    "django",
    "celery",
    "crucible",
)


@lru_cache(maxsize=1)
def code_version() -> str:
    root = Path(settings.BASE_DIR)
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
        sha = out.stdout.strip()
        if sha:
            dirty = subprocess.run(
                ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=5,
            ).stdout.strip()
            return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return "crucible-" + metadata.version("crucible")
    except metadata.PackageNotFoundError:
        return "unknown"


@lru_cache(maxsize=1)
def package_versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for name in TRACKED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def run_claim(*, run_id: int, attempt: int, worker_name: str, device: str) -> bool:
    """Atomically move queued -> running for this attempt. A duplicate message, a stale
    attempt or a cancelled run claims nothing: a run executes at most once per attempt."""
    from apps.pools.models import WorkerPool

    now = timezone.now()
    with transaction.atomic():
        run = Run.objects.filter(pk=run_id).select_related("pool").first()
        if run is None:
            return False
        pool = WorkerPool.objects.get(pk=run.pool_id)
        if not pool.accepting:
            # Paused while the message was in flight: hold it (resume re-dispatches).
            Run.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(dispatched_at=None)
            return False
        worker = Worker.objects.filter(hostname=worker_name).first()
        claimed = Run.objects.filter(
            pk=run_id, status=RunStatus.QUEUED, attempt=attempt, cancel_requested=False
        ).update(
            status=RunStatus.RUNNING,
            started_at=now,
            heartbeat_at=now,
            worker=worker,
            worker_name=worker_name,
            device=device,
            code_version=code_version(),
            package_versions=package_versions(),
            status_reason="",
            error="",
            traceback="",
        )
        if claimed:
            if attempt > 1:
                # Curves belong to an attempt: a requeued run draws them afresh, never doubled.
                MetricPoint.objects.filter(run_id=run_id).delete()
            event_append(
                run_id=run_id,
                kind="status",
                data={
                    "status": RunStatus.RUNNING,
                    "attempt": attempt,
                    "reason": f"started on {worker_name} ({device}), attempt {attempt}",
                },
            )
    return bool(claimed)


class _Heartbeat(threading.Thread):
    """Touches the run's heartbeat while it executes; stops with the process if it dies."""

    def __init__(self, run_id: int, attempt: int, interval: float) -> None:
        super().__init__(daemon=True, name=f"heartbeat-run-{run_id}")
        self.run_id, self.attempt, self.interval = run_id, attempt, interval
        self.stop_event = threading.Event()

    def run(self) -> None:
        while not self.stop_event.wait(self.interval):
            try:
                Run.objects.filter(
                    pk=self.run_id, status=RunStatus.RUNNING, attempt=self.attempt
                ).update(heartbeat_at=timezone.now())
            except Exception:  # noqa: BLE001 - database blip: try again next beat
                log.warning("heartbeat for run %s failed", self.run_id, exc_info=True)
            finally:
                close_old_connections()


def build_model_adapter(entry: ModelEntry | None):
    if entry is None:
        return None
    import os

    from workers.models.base import ModelSpec, build_adapter

    api_key = decrypt_secret(entry.api_key_encrypted) or (
        os.environ.get(entry.api_key_env, "") if entry.api_key_env else ""
    )
    spec = ModelSpec(
        kind=entry.kind,
        name=entry.name,
        base_url=entry.base_url,
        model_id=entry.model_id,
        path=entry.path,
        api_key=api_key,
        options=dict(entry.options or {}),
    )
    return build_adapter(spec)


def run_execute(*, run_id: int, attempt: int, worker_name: str, device: str = "cpu") -> str:
    """Execute one run. Returns the final status (or 'skipped' when nothing was claimed)."""
    if not run_claim(run_id=run_id, attempt=attempt, worker_name=worker_name, device=device):
        return "skipped"
    run = Run.objects.select_related("benchmark", "method", "model").get(pk=run_id)
    heartbeat = _Heartbeat(run_id, attempt, settings.CRUCIBLE_HEARTBEAT_SECONDS)
    heartbeat.start()
    ctx = None
    try:
        bench_cls = registry.get_benchmark(run.benchmark.name)
        method_cls = registry.get_method(run.method.name)
        bench = bench_cls(run.benchmark_config)
        method = method_cls(run.method_config)
        ctx = DjangoRunContext(
            run,
            device=device,
            data_dir=settings.CRUCIBLE_DATA_DIR,
            model=build_model_adapter(run.model),
        )
        seed_everything(run.seed)
        if device == "cpu":
            # Small models run many times faster on one thread than fighting over a shared CPU.
            import torch

            torch.set_num_threads(settings.CRUCIBLE_CPU_THREADS)
        ctx.log(f"{run.benchmark.name} x {run.method.name} seed={run.seed} device={device}")
        bench.run(ctx, method)
        ctx.flush()
        summary = ctx.summary_values
        primary = bench_cls.primary_metric().name
        with_db_retry(
            lambda: _record_datasets(run, ctx.datasets_used, ctx.dataset_sources),
            what="dataset record",
        )
        if primary not in summary:
            raise RuntimeError(
                f"benchmark {run.benchmark.name!r} finished without logging its primary metric {primary!r}"
            )
        with_db_retry(
            lambda: run_finish(
                run_id=run_id,
                attempt=attempt,
                status=RunStatus.SUCCEEDED,
                reason="finished",
                summary=summary,
            ),
            what=f"run {run_id} finish",
        )
        return RunStatus.SUCCEEDED
    except RunSuperseded as exc:
        # The watchdog gave the run to a new attempt (this worker looked silent, e.g. through a
        # database outage); that attempt records the run, this one stops without a word.
        log.warning("%s; stopping this execution", exc)
        return "superseded"
    except RunCancelled as exc:
        _flush_quietly(ctx)
        reason = str(exc) or "cancelled"
        with_db_retry(
            lambda: run_finish(
                run_id=run_id, attempt=attempt, status=RunStatus.CANCELLED, reason=reason
            ),
            what=f"run {run_id} finish",
        )
        return RunStatus.CANCELLED
    except Exception as exc:  # noqa: BLE001 - every failure is recorded on the run page
        _flush_quietly(ctx)
        error, tb = f"{type(exc).__name__}: {exc}", traceback.format_exc()
        with_db_retry(
            lambda: run_finish(
                run_id=run_id,
                attempt=attempt,
                status=RunStatus.FAILED,
                reason=error[:500],
                error=error,
                tb=tb,
            ),
            what=f"run {run_id} finish",
        )
        return RunStatus.FAILED
    finally:
        heartbeat.stop_event.set()


def _flush_quietly(ctx: DjangoRunContext | None) -> None:
    if ctx is None:
        return
    try:
        ctx.flush()
    except Exception:  # noqa: BLE001 - the failure itself is what the user needs to see
        log.warning("could not flush buffered events", exc_info=True)


def _record_datasets(run: Run, used: dict[str, str], sources: dict[str, str]) -> None:
    """Link the run to a DatasetVersion per dataset it used, so every version a run read is listed."""
    if not used:
        return
    from apps.catalog.services import dataset_version_record

    Run.objects.filter(pk=run.pk).update(datasets_used=used)
    run.dataset_versions.add(
        *[
            dataset_version_record(
                name=name,
                content_hash=content_hash,
                source=sources.get(name, ""),
                benchmark=run.benchmark,
            )
            for name, content_hash in used.items()
        ]
    )
