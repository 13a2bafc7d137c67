"""Scale-out on one machine: throughput of trivial runs through 1, 2 and 4 Celery worker
processes (services profile: PostgreSQL + Redis, one run per worker process at a time).

R runs are queued in one sweep submission while every worker is up (so submission is not what
is timed), then the clock runs from the first claim to the last finish.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crucible_bench_scale REDIS_URL=redis://127.0.0.1:6379/12 \\
        .venv/bin/python -m bench.scaleout --runs 200 --workers 1 2 4
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench.platform_common import (
    bench_env,
    bench_user,
    django_setup,
    machine_line,
    recreate_database,
    require_scratch_postgres,
    start_worker,
    stop,
    wait_for,
)


def one(workers: int, runs: int, steps: int, env: dict, log_dir: Path) -> tuple[float, int]:
    from django.db.models import Max, Min

    from apps.pools.models import Worker, WorkerPool
    from apps.pools.services import pool_pause, pool_resume
    from apps.runs.models import Run
    from apps.runs.services import sweep_submit

    Worker.objects.all().delete()
    pool = WorkerPool.objects.get(name="default")
    pool_pause(pool=pool)  # queue everything first, release at once
    procs = [start_worker(env, i, log_dir) for i in range(workers)]
    try:
        wait_for(
            lambda: Worker.objects.filter(stopped_at__isnull=True).count() >= workers,
            180,
            "workers",
        )
        time.sleep(2)
        sweep = sweep_submit(
            user=bench_user(),
            benchmark="probe",
            method="probe_fast",
            seeds=list(range(runs)),
            benchmark_config={"steps": steps},
        )
        pool_resume(pool=WorkerPool.objects.get(pk=pool.pk))
        ids = list(sweep.runs.values_list("pk", flat=True))
        wait_for(
            lambda: Run.objects.filter(pk__in=ids, status="succeeded").count() == runs,
            1200,
            "all runs",
            interval=0.5,
        )
        span = Run.objects.filter(pk__in=ids).aggregate(
            first=Min("started_at"), last=Max("finished_at")
        )
        seconds = (span["last"] - span["first"]).total_seconds()
        executions = Run.objects.filter(pk__in=ids, attempt=1).count()
        return seconds, executions
    finally:
        stop(procs)


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--steps", type=int, default=1)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = p.parse_args()
    url = require_scratch_postgres()
    if not os.environ.get("REDIS_URL"):
        p.error("REDIS_URL must be set (services profile)")
    recreate_database(url)
    log_dir = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    env = bench_env(str(log_dir / "var"))
    django_setup()
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    print(machine_line())
    results = []
    for w in args.workers:
        seconds, executions = one(w, args.runs, args.steps, env, log_dir)
        results.append((w, seconds, executions))
        print(f"  {w} worker(s): {args.runs} runs in {seconds:.1f} s", flush=True)
    base = args.runs / results[0][1]
    print(
        f"{args.runs} trivial runs (probe, {args.steps} step) per configuration, queued before release"
    )
    print(
        "| worker processes | seconds (first claim -> last finish) | runs/s | speed-up vs 1 | efficiency | single attempt |"
    )
    print("|---|---|---|---|---|---|")
    for w, seconds, executions in results:
        rate = args.runs / seconds
        print(
            f"| {w} | {seconds:.1f} | {rate:.1f} | {rate / base:.2f} | {rate / base / w:.0%} | {executions}/{args.runs} |"
        )
    print(machine_line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
