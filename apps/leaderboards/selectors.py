"""Leaderboards read from the pre-aggregated cells (models.BoardCell): a bounded number of
queries, and work proportional to the rows shown, however many runs a benchmark has.

The rows are ranked in SQL on the sort metric (mean = sum / non-null count over the buckets the
viewer may see), then only the requested page of rows is assembled. Means, CIs and n are the
same as aggregating the SummaryMetric rows of the visible succeeded runs directly.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Count, F, FloatField, Max, Q, Sum, Window
from django.db.models.functions import Cast, NullIf

from apps.catalog.models import Benchmark, Method, ModelEntry
from apps.leaderboards.aggregates import ROW_KEY, board_ensure_fresh
from apps.leaderboards.models import BoardCell
from apps.leaderboards.stats import ci95_from_moments
from apps.runs.models import Run

DEFAULT_LIMIT = 100  # rows per response; exports take every row


def cells_visible_q(user) -> Q:
    """The cell-bucket form of apps.runs.selectors.visible_q (public, the user's teams, own)."""
    if user is not None and user.is_authenticated and user.is_staff:
        return Q()
    q = Q(visibility="public")
    if user is not None and user.is_authenticated:
        q |= Q(team_pk__in=user.team_ids()) | Q(owner_pk=user.pk)
    return q


def logged_keys(cells) -> list[str]:
    """The distinct summary keys among `cells` (the row-count key excluded), in key order.

    A loose index scan on (benchmark, key): each step asks the index for the next key above
    the last one that a cell under the same filters has, so the cost grows with the number of
    keys, not with the cells (SELECT DISTINCT read every cell of the board: ~100 ms at 10^6
    summary rows). Both PostgreSQL and SQLite run the recursive CTE. Filters must be on the
    cells' own columns (subqueries are fine); a filter that joins falls back to DISTINCT.
    """
    query = cells.query
    # Joins the ORM set up and then trimmed (e.g. benchmark=<instance>) stay in alias_map with
    # no references; only a live join needs the DISTINCT fallback.
    if sum(1 for alias in query.alias_map if query.alias_refcount.get(alias)) > 1:
        return sorted(set(cells.values_list("key", flat=True).distinct()) - {ROW_KEY})
    where_sql, params = query.get_compiler(connection=connection).compile(query.where)
    table = connection.ops.quote_name(BoardCell._meta.db_table)
    key = f"{table}.{connection.ops.quote_name('key')}"
    step = f"SELECT MIN({key}) FROM {table} WHERE ({where_sql}) AND {key} > "
    sql = (
        f"WITH RECURSIVE k(key) AS ({step}%s UNION ALL SELECT ({step}k.key) FROM k "
        f"WHERE k.key IS NOT NULL) SELECT key FROM k WHERE key IS NOT NULL"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, ROW_KEY, *params])
        return [row[0] for row in cursor.fetchall()]


def leaderboard(
    *,
    benchmark: Benchmark,
    user=None,
    methods: list[str] | None = None,
    models: list[str] | None = None,
    sort: str | None = None,
    descending: bool | None = None,
    all_columns: bool = False,
    limit: int | None = DEFAULT_LIMIT,
    offset: int = 0,
) -> dict[str, Any]:
    """Rows = (method, model, configuration); each metric as mean, 95% CI half-width, n seeds.
    `all_columns` adds every other summary key the runs logged (e.g. per-task scores), after
    the declared metrics and without a direction. `limit`/`offset` page through the ranked rows
    (limit None: all); `total_rows` says how many there are."""
    board_ensure_fresh(benchmark.pk)
    metrics = list(benchmark.metrics)
    metric_names = [m["name"] for m in metrics]
    cells = BoardCell.objects.filter(cells_visible_q(user), benchmark=benchmark)
    if methods:
        cells = cells.filter(method_id__in=Method.objects.filter(name__in=methods).values("pk"))
    if models:
        cells = cells.filter(model_pk__in=ModelEntry.objects.filter(name__in=models).values("pk"))
    if all_columns:
        extra = sorted(set(logged_keys(cells)) - set(metric_names))
        metrics += [
            {
                "name": k,
                "goal": None,
                "unit": "",
                "primary": False,
                "description": "logged by the runs",
            }
            for k in extra
        ]
        metric_names += extra

    primary = benchmark.primary_metric.get("name") if metrics else None
    sort = sort if sort in metric_names else primary
    spec = next((m for m in metrics if m["name"] == sort), None)
    if descending is None:
        descending = ((spec or {}).get("goal") or "max") == "max"

    # 1. Ranked row keys from two cells per row: the row-count cell (every row has one) and the
    #    sort metric's cell, summed over the visible buckets.
    groups = (
        cells.filter(key__in=[ROW_KEY, sort])
        .values("method_id", "model_pk", "config_hash")
        .annotate(
            sort_total=Sum("total", filter=Q(key=sort)), sort_nv=Sum("n_values", filter=Q(key=sort))
        )
        .annotate(sort_mean=Cast(F("sort_total"), FloatField()) / NullIf(F("sort_nv"), 0))
    )
    mean_order = (
        F("sort_mean").desc(nulls_last=True) if descending else F("sort_mean").asc(nulls_last=True)
    )
    # The row count rides on the ranking query (COUNT(*) OVER () is evaluated after GROUP BY
    # and before LIMIT): one scan of the two cells per row instead of a second COUNT query.
    groups = groups.annotate(total_rows=Window(Count("*"))).order_by(
        mean_order, "method_id", "model_pk", "config_hash"
    )
    page = list(groups[offset : offset + limit] if limit is not None else groups[offset:])
    if page:
        total_rows = page[0]["total_rows"]
    elif offset:  # past the end: the window saw no row, count them
        total_rows = (
            cells.filter(key=ROW_KEY)
            .values("method_id", "model_pk", "config_hash")
            .distinct()
            .count()
        )
    else:
        total_rows = 0

    # 2. Every metric of the rows on this page, summed over the visible buckets.
    hashes = {g["config_hash"] for g in page}
    agg = (
        (
            cells.filter(config_hash__in=hashes, key__in=metric_names)
            .values("method_id", "method__name", "model_pk", "config_hash", "key")
            .annotate(
                n_sum=Sum("n"),
                nv=Sum("n_values"),
                t=Sum("total"),
                tsq=Sum("total_sq"),
                last=Max("last_run"),
            )
            .order_by()
        )
        if page
        else []
    )
    by_row: dict[tuple, dict[str, dict]] = {}
    last_run: dict[tuple, int] = {}
    method_names: dict[int, str] = {}
    for a in agg:
        group = (a["method_id"], a["model_pk"], a["config_hash"])
        method_names[a["method_id"]] = a["method__name"]
        mean = a["t"] / a["nv"] if a["nv"] else None
        mean_sq = a["tsq"] / a["nv"] if a["nv"] else None
        by_row.setdefault(group, {})[a["key"]] = {
            "mean": mean,
            "ci95": ci95_from_moments(mean, mean_sq, a["n_sum"]),
            "n": a["n_sum"],
        }
        last_run[group] = max(last_run.get(group, 0), a["last"])
    # 3. Model names and the configs shown on each row (the latest run of each group).
    model_names = (
        dict(
            ModelEntry.objects.filter(
                pk__in={g["model_pk"] for g in page if g["model_pk"]}
            ).values_list("pk", "name")
        )
        if any(g["model_pk"] for g in page)
        else {}
    )
    configs = (
        {
            r["pk"]: r
            for r in Run.objects.filter(pk__in=list(last_run.values())).values(
                "pk", "benchmark_config", "method_config", "method__is_baseline"
            )
        }
        if last_run
        else {}
    )
    out_rows = []
    for rank, g in enumerate(page, start=offset + 1):
        group = (g["method_id"], g["model_pk"], g["config_hash"])
        row_metrics = by_row.get(group, {})
        cfg = configs.get(last_run.get(group), {})
        out_rows.append(
            {
                "method": method_names.get(g["method_id"]),
                "model": model_names.get(g["model_pk"]),
                "config_hash": g["config_hash"],
                "last_run": last_run.get(group, 0),
                "metrics": row_metrics,
                "benchmark_config": cfg.get("benchmark_config", {}),
                "method_config": cfg.get("method_config", {}),
                "is_baseline": cfg.get("method__is_baseline", False),
                "seeds": max((m["n"] for m in row_metrics.values()), default=0),
                "rank": rank,
            }
        )
    return {
        "benchmark": benchmark.name,
        "metrics": metrics,
        "sort": sort,
        "descending": descending,
        "version": benchmark.results_version,
        "rows": out_rows,
        "all_columns": all_columns,
        "total_rows": total_rows,
        "offset": offset,
        "limit": limit,
    }


def board_declared_only(board: dict[str, Any], declared: list[dict]) -> dict[str, Any]:
    """An all-columns board cut down to the benchmark's declared metrics: the same rows in the
    same order (a board ranks on a declared metric unless asked otherwise), so a page that needs
    both (the comparison figure and the table) computes the board once."""
    names = {m["name"] for m in declared}
    rows = []
    for row in board["rows"]:
        kept = {k: v for k, v in row["metrics"].items() if k in names}
        rows.append(
            {**row, "metrics": kept, "seeds": max((m["n"] for m in kept.values()), default=0)}
        )
    metrics = [m for m in board["metrics"] if m["name"] in names]
    return {**board, "metrics": metrics, "rows": rows, "all_columns": False}


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
