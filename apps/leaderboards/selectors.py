"""Leaderboards computed in SQL from SummaryMetric rows: one query however many runs."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Avg, Count, F, Max

from apps.catalog.models import Benchmark
from apps.leaderboards.stats import ci95_from_moments
from apps.runs.models import Run, RunStatus, SummaryMetric
from apps.runs.selectors import visible_q


def leaderboard(*, benchmark: Benchmark, user=None, methods: list[str] | None = None,
                models: list[str] | None = None, sort: str | None = None, descending: bool | None = None,
                all_columns: bool = False) -> dict[str, Any]:
    """Rows = (method, model, configuration); each metric as mean, 95% CI half-width, n seeds.
    `all_columns` adds every other summary key the runs logged (e.g. per-task scores), after
    the declared metrics and without a direction."""
    metrics = list(benchmark.metrics)
    metric_names = [m["name"] for m in metrics]
    # Chunk runs of a sharded evaluation appear through their merged run only.
    qs = SummaryMetric.objects.filter(benchmark=benchmark, run__status=RunStatus.SUCCEEDED, run__is_chunk=False)
    qs = qs.filter(visible_q(user, prefix="run__"))
    if methods:
        qs = qs.filter(run__method__name__in=methods)
    if models:
        qs = qs.filter(run__model__name__in=models)
    agg = (
        qs.values("run__method__name", "run__model__name", "run__config_hash", "key")
        .annotate(mean=Avg("value"), mean_sq=Avg(F("value") * F("value")), n=Count("id"), last_run=Max("run_id"))
        .order_by()
    )
    rows: dict[tuple, dict[str, Any]] = defaultdict(dict)
    for a in agg:
        group = (a["run__method__name"], a["run__model__name"], a["run__config_hash"])
        row = rows[group]
        row.setdefault("method", group[0])
        row.setdefault("model", group[1])
        row.setdefault("config_hash", group[2])
        row["last_run"] = max(row.get("last_run", 0), a["last_run"])
        row.setdefault("metrics", {})[a["key"]] = {
            "mean": a["mean"], "ci95": ci95_from_moments(a["mean"], a["mean_sq"], a["n"]), "n": a["n"],
        }
    # One extra query for the configs shown on each row (the latest run of each group).
    last_ids = [r["last_run"] for r in rows.values()]
    configs = {
        r["pk"]: r for r in Run.objects.filter(pk__in=last_ids).values("pk", "benchmark_config", "method_config", "method__is_baseline")
    }
    if all_columns:
        extra = sorted({k for row in rows.values() for k in row["metrics"]} - set(metric_names))
        metrics += [{"name": k, "goal": None, "unit": "", "primary": False, "description": "logged by the runs"} for k in extra]
        metric_names += extra
    out_rows = []
    for row in rows.values():
        cfg = configs.get(row["last_run"], {})
        row["benchmark_config"] = cfg.get("benchmark_config", {})
        row["method_config"] = cfg.get("method_config", {})
        row["is_baseline"] = cfg.get("method__is_baseline", False)
        row["seeds"] = max((m["n"] for m in row["metrics"].values()), default=0)
        out_rows.append(row)

    primary = benchmark.primary_metric.get("name") if metrics else None
    sort = sort if sort in metric_names else primary
    spec = next((m for m in metrics if m["name"] == sort), None)
    if descending is None:
        descending = ((spec or {}).get("goal") or "max") == "max"

    def key(row):
        value = row["metrics"].get(sort, {}).get("mean")
        missing = value is None or value != value
        return (missing, -(value or 0) if descending else (value or 0))

    out_rows.sort(key=key)
    for rank, row in enumerate(out_rows, start=1):
        row["rank"] = rank
    return {
        "benchmark": benchmark.name,
        "metrics": metrics,
        "sort": sort,
        "descending": descending,
        "version": benchmark.results_version,
        "rows": out_rows,
        "all_columns": all_columns,
    }


def leaderboard_csv_rows(board: dict[str, Any]):
    names = [m["name"] for m in board["metrics"]]
    header = ["rank", "method", "model", "config_hash", "seeds"]
    for name in names:
        header += [f"{name}_mean", f"{name}_ci95", f"{name}_n"]
    yield header
    for row in board["rows"]:
        line = [row["rank"], row["method"], row["model"] or "", row["config_hash"], row["seeds"]]
        for name in names:
            m = row["metrics"].get(name, {})
            line += [m.get("mean"), m.get("ci95"), m.get("n")]
        yield line
