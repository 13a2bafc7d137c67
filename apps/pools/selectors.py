from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from apps.pools.models import Worker, WorkerPool


def pools_overview() -> list[dict]:
    """Pools with queue depth (queued runs in the database, the source of truth), running
    runs, and their workers with online state and current runs."""
    from apps.runs.models import Run, RunStatus

    cutoff = timezone.now() - timedelta(seconds=settings.CRUCIBLE_HEARTBEAT_TIMEOUT)
    pools = WorkerPool.objects.annotate(
        queued=Count("runs", filter=Q(runs__status=RunStatus.QUEUED)),
        running=Count("runs", filter=Q(runs__status=RunStatus.RUNNING)),
    ).order_by("name")
    workers = list(Worker.objects.select_related("pool").order_by("hostname"))
    current: dict[int, list[int]] = {}
    for run_id, worker_id in Run.objects.filter(
        status=RunStatus.RUNNING, worker__isnull=False
    ).values_list("pk", "worker_id"):
        current.setdefault(worker_id, []).append(run_id)
    out = []
    for pool in pools:
        ws = [
            {
                "hostname": w.hostname,
                "pid": w.pid,
                "devices": w.devices,
                "concurrency": w.concurrency,
                "last_heartbeat": w.last_heartbeat,
                "online": bool(
                    w.last_heartbeat and w.last_heartbeat >= cutoff and not w.stopped_at
                ),
                "current_runs": current.get(w.pk, []),
            }
            for w in workers
            if w.pool_id == pool.pk
        ]
        out.append(
            {
                "name": pool.name,
                "description": pool.description,
                "paused": pool.paused,
                "draining": pool.draining,
                "queue": pool.queue,
                "queued": pool.queued,
                "running": pool.running,
                "workers": ws,
                "online_workers": sum(w["online"] for w in ws),
            }
        )
    return out
