"""Leaderboard and run-list reads at scale: R runs (default 100,000) with M summary metrics
each (default 10) and S seeds per configuration (default 10), generated straight into a
scratch PostgreSQL database, then the leaderboard API and page and the run-list API and page
requested repeatedly through Django's test client (the whole view, serializer and template
stack, no network): p50/p95 wall time and the number of SQL queries of each.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crucible_bench_board \\
        .venv/bin/python -m bench.leaderboard_scale --runs 100000

--reuse keeps an already generated database (generation takes a minute or two).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time

from bench.platform_common import (
    bench_env,
    bench_user,
    django_setup,
    machine_line,
    percentile,
    recreate_database,
    require_scratch_postgres,
)

METHODS = ("probe_fast", "probe_slow")


def generate(runs: int, seeds: int, metrics: int) -> None:
    """Runs in bulk through the ORM (every column as the platform writes it), then the summary
    metrics and their Run.summary with one INSERT ... SELECT (values drawn by PostgreSQL)."""
    from django.db import connection, transaction
    from django.utils import timezone

    from apps.accounts.models import User
    from apps.catalog.models import Benchmark, Method
    from apps.pools.services import pool_get_default
    from apps.runs.models import Run, SummaryMetric
    from apps.runs.services import _owner_team, config_hash

    user = bench_user()
    other = bench_user("colleague")
    teams = {u.pk: _owner_team(u) for u in (user, other)}
    bench = Benchmark.objects.get(name="probe")
    methods = {m.name: m for m in Method.objects.filter(name__in=METHODS)}
    pool = pool_get_default()
    rng = random.Random(0)
    now = timezone.now()
    configs = runs // seeds
    batch: list[Run] = []
    start = time.perf_counter()
    for c in range(configs):
        method = methods[METHODS[c % len(METHODS)]]
        bconf, mconf = (
            {
                "steps": 20,
                "sleep": 0.0,
                "fail_at": -1,
                "artifact": False,
                "hidden_truth": False,
                "nan_metric": False,
            },
            {"rate": round(0.001 + c * 0.001, 6)},
        )
        owner = user if rng.random() < 0.9 else other
        visibility = "public" if rng.random() < 0.9 else "team"
        h = config_hash(bconf, mconf, None)
        for seed in range(seeds):
            batch.append(
                Run(
                    owner=owner,
                    team=teams[owner.pk],
                    visibility=visibility,
                    benchmark=bench,
                    method=method,
                    pool=pool,
                    benchmark_config=bconf,
                    method_config=mconf,
                    config_hash=h,
                    seed=seed,
                    status="succeeded",
                    started_at=now,
                    finished_at=now,
                    progress_done=20,
                    progress_total=20,
                    event_seq=3,
                )
            )
        if len(batch) >= 5000:
            Run.objects.bulk_create(batch)
            batch = []
    Run.objects.bulk_create(batch)
    keys = ["loss", "score"] + [f"extra{i}" for i in range(metrics - 2)]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {SummaryMetric._meta.db_table} (run_id, benchmark_id, key, value) "
            "SELECT r.id, r.benchmark_id, k.key, random() FROM runs_run r CROSS JOIN unnest(%s::text[]) AS k(key)",
            [keys],
        )
        cursor.execute(
            "UPDATE runs_run r SET summary = s.summary FROM (SELECT run_id, jsonb_object_agg(key, value) AS summary "
            f"FROM {SummaryMetric._meta.db_table} GROUP BY run_id) s WHERE s.run_id = r.id"
        )
        cursor.execute("ANALYZE")
    _ = User
    print(
        f"generated {Run.objects.count()} runs, {SummaryMetric.objects.count()} summary metrics "
        f"in {time.perf_counter() - start:.0f} s"
    )


def measure(client, url: str, repeat: int) -> tuple[list[float], int, int]:
    from django.db import connection

    queries = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    # An execute wrapper, not CaptureQueriesContext: it survives the per-request reconnects
    # (CONN_MAX_AGE=0) and is not capped by the debug query log.
    with connection.execute_wrapper(count):
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    size = len(response.content)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(url)
        times.append(1000 * (time.perf_counter() - start))
    return times, len(queries), size


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--runs", type=int, default=100_000)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--metrics", type=int, default=10)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--reuse", action="store_true", help="keep the generated database")
    args = p.parse_args()
    url = require_scratch_postgres()
    if not args.reuse:
        recreate_database(url)
    bench_env(tempfile.mkdtemp(prefix="bench-board-"))
    django_setup()
    from django.test import Client

    from apps.runs.models import Run

    if not args.reuse or not Run.objects.exists():
        generate(args.runs, args.seeds, args.metrics)
    try:  # pre-aggregated boards are rebuilt from the summary rows the generator wrote
        from apps.leaderboards.aggregates import aggregates_rebuild
    except ImportError:
        aggregates_rebuild = None
    if aggregates_rebuild:
        start = time.perf_counter()
        aggregates_rebuild()
        print(f"aggregates rebuilt in {time.perf_counter() - start:.1f} s")
        # What autovacuum does after a rebuild (its DELETE leaves the old cells dead): without
        # it, repeated --reuse runs measured a table bloated 6x (94 MB for 16 MB of cells).
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE leaderboards_boardcell")
    user = bench_user()
    client = Client()
    client.force_login(user)
    print(machine_line())
    n_runs = Run.objects.count()
    print(
        f"{n_runs} runs, {args.metrics} summary metrics each, {args.seeds} seeds per configuration, "
        f"{n_runs // args.seeds} configurations on one benchmark; {args.repeat} timed requests each"
    )
    print("| request | p50 (ms) | p95 (ms) | SQL queries | response KiB |")
    print("|---|---|---|---|---|")
    for label, path in (
        ("leaderboard API, top 100 rows (default page)", "/api/leaderboards/probe/"),
        (
            "leaderboard API, one method, sorted by score",
            "/api/leaderboards/probe/?method=probe_fast&sort=score",
        ),
        ("leaderboard API, all 10 columns", "/api/leaderboards/probe/?columns=all"),
        ("leaderboard page", "/benchmarks/probe/"),
        ("run list API, page 1 (50)", "/api/runs/"),
        (
            "run list API, filtered benchmark+status, page 100",
            "/api/runs/?benchmark=probe&status=succeeded&page=100",
        ),
        ("run list page (200 rows)", "/runs/"),
    ):
        times, n_queries, size = measure(client, path, args.repeat)
        print(
            f"| {label} `{path}` | {percentile(times, 0.5):.0f} | {percentile(times, 0.95):.0f} | {n_queries} | "
            f"{size / 1024:.0f} |"
        )
    print(machine_line())


if __name__ == "__main__":
    main()
