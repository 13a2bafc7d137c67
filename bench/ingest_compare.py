"""Metric ingestion, side by side in one run on one PostgreSQL server, same generator
(bench/ingest_generator.py), same points, same batch sizes:

  * Crucible: DjangoRunContext.log_metrics once per step (what a plugin does; the context
    buffers), and the same with ctx.flush() after every batch (MLflow's batch boundaries);
  * MLflow: MlflowClient.log_batch against `mlflow server` (REST, its normal deployment) and
    against the SQL store directly (tracking URI = the database: no HTTP, like Crucible's
    workers), from a separate virtualenv (bench/mlflow_driver.py);
  * floors: Django bulk_create of the same rows, and PostgreSQL COPY (the physical floor);
  * with REDIS_URL: fan-out of the same points to W websocket subscribers of the run (Daphne +
    channels-redis), until every subscriber has every point.

Every path's stored rows are counted: nothing may be lost.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crucible_bench_ingest REDIS_URL=redis://127.0.0.1:6379/10 \\
        .venv/bin/python -m bench.ingest_compare --points 200000 --ws-clients 20

Drops and recreates crucible_bench_ingest and crucible_bench_mlflow.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.ingest_generator import steps_in_batches
from bench.platform_common import (
    ROOT,
    bench_env,
    bench_user,
    django_setup,
    machine_line,
    recreate_database,
    require_scratch_postgres,
    start_daphne,
    stop,
    wait_for,
)


def crucible_runcontext(new_run, args, flush_each_batch: bool) -> tuple[float, int, int]:
    from apps.runs.context import DjangoRunContext
    from apps.runs.models import MetricPoint, RunEvent

    run = new_run()
    ctx = DjangoRunContext(run, device="cpu", data_dir="/tmp")
    start = time.perf_counter()
    for batch in steps_in_batches(args.points, args.keys, args.batch):
        for step, values in batch:
            ctx.log_metrics(step, **values)
        if flush_each_batch:
            ctx.flush()
    ctx.flush()
    seconds = time.perf_counter() - start
    return (
        seconds,
        MetricPoint.objects.filter(run=run).count(),
        RunEvent.objects.filter(run=run, kind="metrics").count(),
    )


def raw_bulk_create(new_run, args) -> tuple[float, int]:
    from apps.runs.models import MetricPoint

    run = new_run()
    start = time.perf_counter()
    rows = [
        MetricPoint(run_id=run.pk, key=k, step=s, value=v)
        for batch in steps_in_batches(args.points, args.keys, args.batch)
        for s, vals in batch
        for k, v in vals.items()
    ]
    MetricPoint.objects.bulk_create(rows, batch_size=5000)
    return time.perf_counter() - start, MetricPoint.objects.filter(run=run).count()


def raw_copy(new_run, args) -> tuple[float, int]:
    """COPY ... FROM STDIN in the text format into the same table and index: the floor."""
    from django.db import connection, transaction

    from apps.runs.models import MetricPoint

    run = new_run()
    table = MetricPoint._meta.db_table
    start = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        buffer = io.StringIO()
        for batch in steps_in_batches(args.points, args.keys, args.batch):
            for s, vals in batch:
                for k, v in vals.items():
                    buffer.write(f"{run.pk}\t{k}\t{s}\t{v!r}\n")
        with cursor.cursor.copy(f"COPY {table} (run_id, key, step, value) FROM STDIN") as copy:
            copy.write(buffer.getvalue())
    return time.perf_counter() - start, MetricPoint.objects.filter(run=run).count()


def mlflow_paths(args, log_dir: Path) -> dict[str, tuple[float, int]]:
    """Returns {label: (seconds, rows stored)} for MLflow through its server and directly."""
    import psycopg

    from tests.support import free_port

    python = Path(args.mlflow_venv) / "bin" / "python"
    if not python.exists():
        print(f"MLflow virtualenv {args.mlflow_venv} not found: skipping MLflow")
        return {}
    plain = "postgres://postgres@127.0.0.1:5432/crucible_bench_mlflow"
    db = plain.replace(
        "postgres://", "postgresql+psycopg2://"
    )  # the driver installed in MLflow's venv
    recreate_database(plain)
    port = free_port()
    artifacts = tempfile.mkdtemp(prefix="mlflow-artifacts-")
    server = subprocess.Popen(
        [
            str(python),
            "-m",
            "mlflow",
            "server",
            "--backend-store-uri",
            db,
            "--default-artifact-root",
            artifacts,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(args.mlflow_workers),
        ],
        cwd=ROOT,
        start_new_session=True,
        stdout=open(log_dir / "mlflow-server.log", "wb"),
        stderr=subprocess.STDOUT,
    )
    out: dict[str, tuple[float, int]] = {}
    try:
        import requests

        def up() -> bool:
            if server.poll() is not None:
                raise SystemExit(f"mlflow server exited; see {log_dir / 'mlflow-server.log'}")
            return requests.get(f"http://127.0.0.1:{port}/health", timeout=1).ok

        wait_for(up, 300, "mlflow server")
        for label, uri in (
            ("MLflow log_batch via mlflow server (REST)", f"http://127.0.0.1:{port}"),
            ("MLflow log_batch, SQL store directly", db),
        ):
            result = subprocess.run(
                [
                    str(python),
                    str(ROOT / "bench" / "mlflow_driver.py"),
                    "--uri",
                    uri,
                    "--points",
                    str(args.points),
                    "--keys",
                    str(args.keys),
                    "--batch",
                    str(args.batch),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            info = json.loads(result.stdout.strip().splitlines()[-1])
            with psycopg.connect(plain) as conn:
                stored = conn.execute(
                    "SELECT count(*) FROM metrics WHERE run_uuid = %s", [info["run_id"]]
                ).fetchone()[0]
            out[label] = (info["seconds"], stored)
    finally:
        stop([server])
    return out


def websocket_fanout(new_run, args, env, log_dir: Path) -> tuple[float, int, int]:
    """W subscribers on one run; a RunContext logs the points; time until every subscriber
    holds every point. Returns (seconds, subscribers that got every point exactly once, W)."""
    import requests
    import websockets

    from apps.runs.context import DjangoRunContext
    from tests.support import free_port

    port = free_port()
    daphne = start_daphne(env, port, log_dir)
    try:
        wait_for(
            lambda: requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).ok, 120, "daphne"
        )
        run = new_run()
        expected = (args.points // args.keys) * args.keys
        got = [dict() for _ in range(args.ws_clients)]

        async def subscriber(i: int, ready: asyncio.Event, counter: list[int]) -> None:
            url = f"ws://127.0.0.1:{port}/ws/runs/{run.pk}/?after=0"
            async with websockets.connect(
                url, additional_headers={"Origin": f"http://127.0.0.1:{port}"}, max_size=None
            ) as ws:
                counter[0] += 1
                if counter[0] == args.ws_clients:
                    ready.set()
                n = 0
                while n < expected:
                    event = json.loads(await asyncio.wait_for(ws.recv(), timeout=120))
                    if event["kind"] == "metrics":
                        for step, values in event["data"]["points"]:
                            for key in values:
                                got[i][(step, key)] = got[i].get((step, key), 0) + 1
                                n += 1

        async def drive() -> float:
            ready, counter = asyncio.Event(), [0]
            tasks = [
                asyncio.create_task(subscriber(i, ready, counter)) for i in range(args.ws_clients)
            ]
            await asyncio.wait_for(ready.wait(), 60)
            await asyncio.sleep(0.5)  # every consumer has joined its group

            def produce() -> None:
                ctx = DjangoRunContext(run, device="cpu", data_dir="/tmp")
                for batch in steps_in_batches(args.points, args.keys, args.batch):
                    for step, values in batch:
                        ctx.log_metrics(step, **values)
                ctx.flush()

            start = time.perf_counter()
            producer = threading.Thread(target=produce)
            producer.start()
            await asyncio.gather(*tasks)
            producer.join()
            return time.perf_counter() - start

        seconds = asyncio.run(drive())
        complete = sum(len(g) == expected and all(c == 1 for c in g.values()) for g in got)
        return seconds, complete, args.ws_clients
    finally:
        stop([daphne])


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--points", type=int, default=200_000)
    p.add_argument("--keys", type=int, default=4, help="metric keys per step")
    p.add_argument(
        "--batch", type=int, default=1000, help="points per client batch (MLflow's log_batch limit)"
    )
    p.add_argument("--mlflow-venv", default=str(ROOT / "var" / "mlflow-venv"))
    p.add_argument(
        "--mlflow-workers",
        type=int,
        default=2,
        help="mlflow server worker processes (one per core)",
    )
    p.add_argument(
        "--ws-clients", type=int, default=0, help="websocket subscribers (needs REDIS_URL)"
    )
    p.add_argument("--skip-mlflow", action="store_true")
    args = p.parse_args()
    url = require_scratch_postgres()
    recreate_database(url)
    log_dir = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    env = bench_env(str(log_dir / "var"))
    django_setup()
    from django.db import connection

    from apps.pools.models import WorkerPool
    from apps.runs.services import run_submit

    print(machine_line())
    user = bench_user()
    WorkerPool.objects.filter(name="default").update(
        paused=True
    )  # runs stay queued: nothing executes them

    def new_run():
        # Queued on a paused pool, then marked running as a worker's claim would: the context
        # only writes for the running attempt.
        from django.utils import timezone

        from apps.runs.models import Run

        run = run_submit(user=user, benchmark="probe", method="probe_fast")
        Run.objects.filter(pk=run.pk).update(status="running", started_at=timezone.now())
        run.refresh_from_db()
        return run

    n = (args.points // args.keys) * args.keys
    rows: list[tuple[str, float, int, str]] = []
    s, stored, events = crucible_runcontext(new_run, args, flush_each_batch=False)
    rows.append(
        ("Crucible DjangoRunContext.log_metrics (buffered)", s, stored, f"{events} metric events")
    )
    s, stored, events = crucible_runcontext(new_run, args, flush_each_batch=True)
    rows.append(
        (
            f"Crucible DjangoRunContext, flush every {args.batch} points",
            s,
            stored,
            f"{events} metric events",
        )
    )
    if not args.skip_mlflow:
        for label, (s, stored) in mlflow_paths(args, log_dir).items():
            rows.append((label, s, stored, f"{-(-n // args.batch)} log_batch calls"))
    s, stored = raw_bulk_create(new_run, args)
    rows.append(("raw Django bulk_create, same rows (no events)", s, stored, ""))
    s, stored = raw_copy(new_run, args)
    rows.append(("raw PostgreSQL COPY, same rows (physical floor)", s, stored, ""))

    base = next(
        s for label, s, _, _ in rows if label.startswith("Crucible DjangoRunContext.log_metrics")
    )
    mlflow_rest = next((s for label, s, _, _ in rows if "REST" in label), None)
    print(
        f"{n} points, {args.keys} keys per step, batches of {args.batch}, {connection.vendor} "
        f"{connection.cursor().connection.info.server_version}"
    )
    print(
        "| path | seconds | points/s | stored / sent | x MLflow REST | time / Crucible buffered | notes |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, s, stored, note in rows:
        vs_mlflow = f"{mlflow_rest / s:.1f}" if mlflow_rest else "-"
        print(
            f"| {label} | {s:.2f} | {n / s:,.0f} | {stored}/{n} | {vs_mlflow} | {s / base:.2f} | {note} |"
        )

    if args.ws_clients:
        if not os.environ.get("REDIS_URL"):
            raise SystemExit("--ws-clients needs REDIS_URL (services profile)")
        s, complete, w = websocket_fanout(new_run, args, env, log_dir)
        print(
            f"| websocket fan-out: RunContext -> {w} subscribers | {s:.2f} | {n / s:,.0f} per subscriber, "
            f"{n * w / s:,.0f} delivered | {complete}/{w} subscribers got every point once | | | |"
        )
    print(machine_line())
    sys.stdout.flush()


if __name__ == "__main__":
    main()
