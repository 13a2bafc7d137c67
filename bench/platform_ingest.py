"""Metric ingestion throughput (the short version; bench/ingest_compare.py adds MLflow, COPY and
websocket fan-out): Crucible's RunContext (buffered, batched writes plus events)
against a raw bulk insert of the same rows into the same database, side by side in one run.

    .venv/bin/python -m bench.platform_ingest --points 200000            # embedded (SQLite)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crucible_bench \
        .venv/bin/python -m bench.platform_ingest --points 200000         # PostgreSQL

Creates (and migrates) the database it is pointed at; use a scratch database.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings")
os.environ.setdefault("CRUCIBLE_PLUGIN_MODULES", "tests.platform.probe_plugin")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=200_000, help="metric values to log")
    parser.add_argument("--keys", type=int, default=4, help="metric keys per log_metrics call")
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    call_command("crucible_sync", verbosity=0)
    from apps.accounts.models import User
    from apps.accounts.services import user_create
    from apps.pools.models import WorkerPool
    from apps.runs.context import DjangoRunContext
    from apps.runs.models import MetricPoint, Run, RunEvent
    from apps.runs.services import run_submit

    user = User.objects.filter(username="bench").first() or user_create(
        username="bench", password="bench-password-1"
    )
    WorkerPool.objects.filter(name="default").update(paused=True)

    def new_run() -> Run:
        # Marked running as a worker's claim would: the context writes only for the running attempt.
        run = run_submit(user=user, benchmark="probe", method="probe_fast")
        Run.objects.filter(pk=run.pk).update(status="running")
        run.refresh_from_db()
        return run

    steps = args.points // args.keys
    keys = [f"m{i}" for i in range(args.keys)]

    # 1. Crucible: what a plugin does, point by point through ctx.log_metrics.
    run = new_run()
    ctx = DjangoRunContext(run, device="cpu", data_dir="/tmp")
    start = time.perf_counter()
    for step in range(steps):
        ctx.log_metrics(step, **{k: step * 0.001 for k in keys})
    ctx.flush()
    crucible_s = time.perf_counter() - start
    stored = MetricPoint.objects.filter(run=run).count()
    events = RunEvent.objects.filter(run=run, kind="metrics").count()
    assert stored == steps * args.keys, (stored, steps * args.keys)

    # 2. Raw bulk insert of the same rows (no events, no buffering logic): the floor.
    run2 = new_run()
    rows = [
        MetricPoint(run_id=run2.pk, key=k, step=step, value=step * 0.001)
        for step in range(steps)
        for k in keys
    ]
    start = time.perf_counter()
    MetricPoint.objects.bulk_create(rows, batch_size=5000)
    raw_s = time.perf_counter() - start

    n = steps * args.keys
    vendor = connection.vendor
    print(
        "| backend | points | Crucible RunContext (pts/s) | raw bulk_create (pts/s) | ratio raw/Crucible | metric events |"
    )
    print("|---|---|---|---|---|---|")
    print(
        f"| {vendor} | {n} | {n / crucible_s:,.0f} | {n / raw_s:,.0f} | {crucible_s / raw_s:.2f} | {events} |"
    )


if __name__ == "__main__":
    main()
