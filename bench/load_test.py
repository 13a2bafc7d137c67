"""Load test of the services profile, on loopback only, bounded in count and time.

Starts Daphne and N Celery worker processes against a scratch PostgreSQL database and Redis,
holds C websocket clients on run pages, submits R runs in a burst through the REST API (each
run logs S metric points), then verifies that every run finished, every point is stored and
every client saw every event of its run exactly once, and prints the figures.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crucible_load REDIS_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python -m bench.load_test --runs 1000 --steps 1000 --clients 100 --workers 2

The database named in DATABASE_URL is dropped and recreated: point it at a scratch database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

from bench.platform_common import (
    bench_env,
    django_setup,
    recreate_database,
    start_daphne,
    start_worker,
    stop,
)
from tests.support import free_port


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--steps", type=int, default=1000, help="metric points per run")
    p.add_argument("--clients", type=int, default=100, help="websocket clients held on run pages")
    p.add_argument("--workers", type=int, default=2, help="Celery worker processes")
    p.add_argument("--time-limit", type=float, default=1800, help="give up after this many seconds")
    args = p.parse_args()
    for var in ("DATABASE_URL", "REDIS_URL"):
        if not os.environ.get(var):
            p.error(f"{var} must be set (services profile)")
    host = urlparse(os.environ["DATABASE_URL"]).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        p.error("the load test only targets loopback services")

    recreate_database(os.environ["DATABASE_URL"])
    env = bench_env("/tmp/crucible-load-var")
    django_setup()
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    from django.test import Client

    from apps.accounts.models import Team
    from apps.accounts.services import api_token_create, user_create

    user = user_create(username="load", password="load-password-1")
    # The burst is larger than a default team quota on purpose: raise this team's quota.
    Team.objects.filter(memberships__user=user).update(
        max_concurrent_runs=args.runs + 10, max_runs_per_day=args.runs + 10
    )
    _, token = api_token_create(user=user)
    browser = Client()
    browser.force_login(user)
    cookie = browser.cookies["sessionid"].value

    logs = Path(env["CRUCIBLE_VAR_DIR"])
    logs.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    procs = [start_daphne(env, port, logs)]
    procs += [start_worker(env, i, logs) for i in range(args.workers)]
    try:
        return asyncio.run(drive(args, url, token, cookie))
    finally:
        stop(procs)


async def drive(args, url: str, token: str, cookie: str) -> int:
    import requests
    import websockets
    from asgiref.sync import sync_to_async

    from apps.pools.models import Worker
    from apps.runs.models import MetricPoint, Run, RunEvent

    deadline = time.monotonic() + args.time_limit
    while True:  # server and workers up
        try:
            if (
                requests.get(f"{url}/healthz", timeout=1).ok
                and await sync_to_async(Worker.objects.count)() >= args.workers
            ):
                break
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("server or workers did not start")
        await asyncio.sleep(0.5)

    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=32))
    session.headers["Authorization"] = f"Bearer {token}"
    body = {"benchmark": "probe", "method": "probe_fast", "benchmark_config": {"steps": args.steps}}

    def submit(seed: int) -> tuple[int, float]:
        start = time.perf_counter()
        response = session.post(f"{url}/api/runs/", json={**body, "seed": seed}, timeout=60)
        if response.status_code != 201:
            raise RuntimeError(f"submit {seed}: HTTP {response.status_code} {response.text[:300]}")
        return response.json()["id"], time.perf_counter() - start

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(submit, range(args.runs)))
    burst_s = time.perf_counter() - t0
    ids = [rid for rid, _ in results]
    latencies = sorted(lat for _, lat in results)

    watched = [ids[i % len(ids)] for i in range(args.clients)]
    seen: dict[int, list[int]] = {i: [] for i in range(args.clients)}

    async def client(index: int, run_id: int) -> None:
        ws_url = url.replace("http", "ws") + f"/ws/runs/{run_id}/?after=0"
        async with websockets.connect(
            ws_url,
            additional_headers={"Cookie": f"sessionid={cookie}", "Origin": url},
            max_size=None,
        ) as ws:
            while time.monotonic() < deadline:
                event = json.loads(
                    await asyncio.wait_for(ws.recv(), timeout=max(deadline - time.monotonic(), 1))
                )
                seen[index].append(event["seq"])
                if event["kind"] == "status" and event["data"]["status"] in (
                    "succeeded",
                    "failed",
                    "cancelled",
                ):
                    return

    clients = asyncio.gather(
        *(client(i, rid) for i, rid in enumerate(watched)), return_exceptions=True
    )
    while time.monotonic() < deadline:
        done = await sync_to_async(
            Run.objects.filter(pk__in=ids, status__in=["succeeded", "failed", "cancelled"]).count
        )()
        if done == len(ids):
            break
        await asyncio.sleep(1)
    total_s = time.perf_counter() - t0
    client_errors = [r for r in await clients if isinstance(r, Exception)]

    statuses = await sync_to_async(
        lambda: dict(Run.objects.filter(pk__in=ids).values_list("pk", "status"))
    )()
    points = await sync_to_async(MetricPoint.objects.filter(run_id__in=ids).count)()
    once = 0
    for index, run_id in enumerate(watched):
        stored = await sync_to_async(
            lambda r=run_id: list(
                RunEvent.objects.filter(run_id=r).order_by("seq").values_list("seq", flat=True)
            )
        )()
        once += seen[index] == stored
    executions = await sync_to_async(
        RunEvent.objects.filter(run_id__in=ids, kind="status", data__status="running").count
    )()
    ok = (
        all(s == "succeeded" for s in statuses.values())
        and points == args.runs * args.steps
        and once == args.clients
        and executions == args.runs
        and not client_errors
    )
    print(
        "| runs | points | ws clients | workers | submit burst (s) | submit p50 / p99 (ms) | all finished (s) | runs/s | points/s | runs succeeded | points stored | clients saw every event once | executions |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    p50, p99 = (
        latencies[len(latencies) // 2],
        latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
    )
    print(
        f"| {args.runs} | {args.runs * args.steps} | {args.clients} | {args.workers} | {burst_s:.1f} | "
        f"{1000 * p50:.0f} / {1000 * p99:.0f} | {total_s:.1f} | {args.runs / total_s:.2f} | "
        f"{args.runs * args.steps / total_s:,.0f} | {sum(s == 'succeeded' for s in statuses.values())}/{args.runs} | "
        f"{points}/{args.runs * args.steps} | {once}/{args.clients} | {executions} |"
    )
    if client_errors:
        print(f"client errors: {client_errors[:3]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
