"""The watchdog: no run stays "running" after its worker went silent, no queued run is lost.

Every worker's heartbeat thread calls `watchdog_sweep()`; `manage.py crucible_watchdog` runs
it standalone. Row locks with SKIP LOCKED (PostgreSQL) keep concurrent sweeps from acting
twice; on SQLite the IMMEDIATE transactions serialise them.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from apps.pools.models import WorkerPool
from apps.runs.events import event_append
from apps.runs.models import Run, RunStatus
from apps.runs.services import _bump_benchmark, run_dispatch

log = logging.getLogger(__name__)


def reconcile_after() -> timedelta:
    return timedelta(seconds=getattr(settings, "CRUCIBLE_RECONCILE_SECONDS", 60.0))


def _locked(qs):
    if connection.features.has_select_for_update_skip_locked:
        return qs.select_for_update(skip_locked=True)
    return qs


def runs_reap_lost(*, now=None) -> list[int]:
    """Requeue (or fail, after too many attempts) runs whose heartbeat stopped."""
    now = now or timezone.now()
    deadline = now - timedelta(seconds=settings.CRUCIBLE_HEARTBEAT_TIMEOUT)
    acted: list[int] = []
    with transaction.atomic():
        lost = list(
            _locked(Run.objects.filter(status=RunStatus.RUNNING, heartbeat_at__lt=deadline))
        )
        for run in lost:
            seen = run.heartbeat_at.strftime("%Y-%m-%d %H:%M:%S UTC")
            who = run.worker_name or "unknown worker"
            if settings.CRUCIBLE_REQUEUE_LOST_RUNS and run.attempt < settings.CRUCIBLE_MAX_ATTEMPTS:
                reason = f"worker lost at {seen} ({who}); requeued as attempt {run.attempt + 1}"
                Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING, attempt=run.attempt).update(
                    status=RunStatus.QUEUED,
                    attempt=run.attempt + 1,
                    worker=None,
                    dispatched_at=None,
                    status_reason=reason,
                    started_at=None,
                    progress_done=0,
                )
                event_append(
                    run_id=run.pk,
                    kind="status",
                    data={"status": RunStatus.QUEUED, "reason": reason},
                )
                transaction.on_commit(lambda rid=run.pk: run_dispatch(run_id=rid))
            else:
                reason = f"worker lost at {seen} ({who}); failed after {run.attempt} attempt(s)"
                Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING, attempt=run.attempt).update(
                    status=RunStatus.FAILED,
                    finished_at=now,
                    status_reason=reason,
                    error=reason,
                    failed_by_platform=True,
                )
                event_append(
                    run_id=run.pk,
                    kind="status",
                    data={"status": RunStatus.FAILED, "reason": reason},
                )
                _bump_benchmark(run.benchmark_id)
            log.warning("run %s: %s", run.pk, reason)
            acted.append(run.pk)
    return acted


def runs_reconcile_queued(*, now=None) -> list[int]:
    """Re-send queued runs that have no message: never dispatched (e.g. the broker was down at
    submit) or dispatched long ago into a queue that is now empty (the broker lost it).
    A duplicate message is harmless: the claim lets only one execution through."""
    now = now or timezone.now()
    accepting = list(WorkerPool.objects.filter(paused=False, draining=False))
    resent: list[int] = []
    for pool in accepting:
        never = Run.objects.filter(
            pool=pool, status=RunStatus.QUEUED, dispatched_at__isnull=True, cancel_requested=False
        )
        ids = list(never.values_list("pk", flat=True)[:1000])
        depth = broker_queue_depth(pool.queue)
        if depth == 0:
            stale = Run.objects.filter(
                pool=pool,
                status=RunStatus.QUEUED,
                dispatched_at__lt=now - reconcile_after(),
                cancel_requested=False,
            )
            ids += list(stale.values_list("pk", flat=True)[:1000])
        for run_id in ids:
            if run_dispatch(run_id=run_id):
                resent.append(run_id)
    return resent


def broker_queue_depth(queue: str) -> int | None:
    """Messages waiting in a pool's queue, or None where the broker cannot say."""
    url = settings.CELERY_BROKER_URL
    if url.startswith("redis"):
        import redis

        try:
            client = redis.Redis.from_url(url, socket_timeout=2)
            return int(client.llen(queue))
        except redis.RedisError:
            return None
    if url.startswith("filesystem"):
        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in")
        try:
            from pathlib import Path

            return sum(1 for p in Path(folder).iterdir() if p.name.endswith(f".{queue}.msg"))
        except OSError:
            return None
    return None


class _DatabaseContact:
    """Since when this process has reached the database without a break.

    A watchdog that was itself cut off from the database (a PostgreSQL restart, a failover)
    cannot tell a silent worker from its own outage: the moment the database is back, every
    live worker's heartbeat looks stale. So it reaps only after a full heartbeat timeout of
    unbroken contact, which gives live workers time to beat again; a worker that really died
    is still reaped, one timeout later."""

    since: float | None = None

    @classmethod
    def lost(cls) -> None:
        cls.since = None

    @classmethod
    def long_enough(cls) -> bool:
        now = time.monotonic()
        if cls.since is None:
            cls.since = now
        return now - cls.since >= settings.CRUCIBLE_HEARTBEAT_TIMEOUT


def database_contact_lost() -> None:
    _DatabaseContact.lost()


def watchdog_sweep(*, grace: bool = True) -> dict[str, list[int]]:
    """One sweep. `grace=False` (a one-off `crucible_watchdog --once`) trusts the heartbeats
    it reads at once; processes that sweep continuously keep the grace after an outage."""
    try:
        connection.ensure_connection()
        reap = not grace or _DatabaseContact.long_enough()
        return {
            "requeued_or_failed": runs_reap_lost() if reap else [],
            "redispatched": runs_reconcile_queued(),
        }
    except (OperationalError, InterfaceError):
        database_contact_lost()
        raise
