"""Writes for pools and workers: registration, heartbeats, pause/resume/drain."""

from __future__ import annotations

import os
import socket

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.pools.models import Worker, WorkerPool


def pool_get_default() -> WorkerPool:
    pool, _ = WorkerPool.objects.get_or_create(
        name=settings.CRUCIBLE_DEFAULT_POOL, defaults={"description": "Default pool"}
    )
    return pool


def pool_get_or_create(*, name: str) -> WorkerPool:
    pool, _ = WorkerPool.objects.get_or_create(name=name)
    return pool


def pool_pause(*, pool: WorkerPool) -> WorkerPool:
    pool.paused = True
    pool.save(update_fields=["paused"])
    return pool


def pool_resume(*, pool: WorkerPool) -> WorkerPool:
    """Resume and hand the runs that waited while paused to the queue."""
    from apps.runs.services import runs_dispatch_held

    pool.paused = False
    pool.draining = False
    pool.save(update_fields=["paused", "draining"])
    transaction.on_commit(lambda: runs_dispatch_held(pool=pool))
    return pool


def pool_drain(*, pool: WorkerPool) -> WorkerPool:
    """Stop starting runs; workers shut down once idle (they check at each heartbeat)."""
    pool.paused = True
    pool.draining = True
    pool.save(update_fields=["paused", "draining"])
    return pool


def worker_register(
    *, hostname: str, pool_name: str, devices: list[dict], concurrency: int
) -> Worker:
    pool = pool_get_or_create(name=pool_name)
    worker, _ = Worker.objects.update_or_create(
        hostname=hostname,
        defaults={
            "pool": pool,
            "pid": os.getpid(),
            "devices": devices,
            "concurrency": concurrency,
            "last_heartbeat": timezone.now(),
            "stopped_at": None,
        },
    )
    return worker


def worker_heartbeat(*, hostname: str) -> None:
    Worker.objects.filter(hostname=hostname).update(last_heartbeat=timezone.now(), stopped_at=None)


def worker_stopped(*, hostname: str) -> None:
    Worker.objects.filter(hostname=hostname).update(stopped_at=timezone.now())


def default_hostname(pool: str) -> str:
    return f"{pool}@{socket.gethostname()}-{os.getpid()}"
