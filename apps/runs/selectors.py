"""Reads for runs, with visibility rules in one place."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from apps.runs.models import MetricPoint, Run, RunEvent


def visible_q(user, prefix: str = "") -> Q:
    """Public objects, plus the user's teams' objects; staff see everything."""
    if user is not None and user.is_authenticated and user.is_staff:
        return Q()
    q = Q(**{f"{prefix}visibility": "public"})
    if user is not None and user.is_authenticated:
        q |= Q(**{f"{prefix}team_id__in": user.team_ids()}) | Q(**{f"{prefix}owner_id": user.pk})
    return q


def runs_visible(user) -> QuerySet[Run]:
    return Run.objects.filter(visible_q(user)).select_related(
        "benchmark", "method", "model", "pool", "owner"
    )


# What a run-list table shows (templates/runs/_table.html): loading only these columns skips
# the runs' JSON (configs, summary, package versions) and the related rows' schemas, which were
# most of a 200-row page's database time and decoding (bench/leaderboard_scale.py).
RUN_TABLE_FIELDS = (
    "id",
    "name",
    "seed",
    "status",
    "progress_done",
    "progress_total",
    "created_at",
    "benchmark__name",
    "method__name",
)


def runs_for_table(qs: QuerySet[Run]) -> QuerySet[Run]:
    return qs.select_related(None).select_related("benchmark", "method").only(*RUN_TABLE_FIELDS)


def runs_filter(
    qs: QuerySet[Run],
    *,
    benchmark: str = "",
    method: str = "",
    model: str = "",
    pool: str = "",
    statuses: list[str] | None = None,
    sweep_id: int | None = None,
) -> QuerySet[Run]:
    """The run-list filters the page and the API share (names, statuses, sweep)."""
    from apps.catalog.models import Benchmark, Method, ModelEntry
    from apps.pools.models import WorkerPool

    for field, value, model_cls in (
        ("benchmark", benchmark, Benchmark),
        ("method", method, Method),
        ("model", model, ModelEntry),
        ("pool", pool, WorkerPool),
    ):
        if value:
            # The name resolved to its id first (one indexed lookup), not joined: with a literal
            # id PostgreSQL estimates the filter from the column's statistics and walks the
            # primary key backwards for "newest first" pages instead of sorting every match
            # (bench/leaderboard_scale.py: page 100 of 100,000 runs 1.3 s -> see PERFORMANCE.md).
            pk = model_cls.objects.filter(name=value).values_list("pk", flat=True).first()
            qs = qs.filter(**{f"{field}_id": pk}) if pk is not None else qs.none()
    if statuses:
        qs = qs.filter(status__in=statuses)
    if sweep_id is not None:
        qs = qs.filter(sweep_id=sweep_id)
    return qs


def run_can_view(user, run: Run) -> bool:
    return runs_visible(user).filter(pk=run.pk).exists()


def run_can_modify(user, run: Run) -> bool:
    """Cancel/retry: the run's owner, staff, or a maintainer/admin of the run's team. Plain
    members of a team see its runs but cannot stop a colleague's work."""
    if not user or not user.is_authenticated:
        return False
    if user.is_staff or run.owner_id == user.pk:
        return True
    if run.team_id is None:
        return False
    from apps.accounts.models import Membership

    return Membership.objects.filter(
        user=user, team_id=run.team_id, role__in=[Membership.Role.MAINTAINER, Membership.Role.ADMIN]
    ).exists()


def _metric_points(run: Run, keys: list[str] | None):
    """(key, step, value) of the run's points, by key then step: what both forms read."""
    qs = MetricPoint.objects.filter(run=run)
    if keys:
        qs = qs.filter(key__in=keys)
    return qs.order_by("key", "step", "id").values_list("key", "step", "value")


def run_metric_series(run: Run, keys: list[str] | None = None) -> dict[str, dict[str, list]]:
    out: dict[str, dict[str, list]] = {}
    for key, step, value in _metric_points(run, keys).iterator(chunk_size=10000):
        series = out.setdefault(key, {"steps": [], "values": []})
        series["steps"].append(step)
        series["values"].append(value)
    return out


def run_metric_csv_lines(run: Run, keys: list[str] | None = None, chunk: int = 10_000):
    """The run's metric points as CSV text (header `key,step,value`; a null value is an empty
    field), yielded a chunk of rows at a time from a server-side cursor."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["key", "step", "value"])
    rows = _metric_points(run, keys).iterator(chunk_size=chunk)
    for n, (key, step, value) in enumerate(rows, start=1):
        writer.writerow([key, step, "" if value is None else repr(value)])
        if n % chunk == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def run_log_lines(run: Run, after: int = 0, limit: int = 10000) -> list[dict]:
    rows = (
        RunEvent.objects.filter(run=run, kind="log", seq__gt=after)
        .order_by("seq")
        .values("seq", "data", "created_at")[:limit]
    )
    return [
        {"seq": r["seq"], "ts": r["created_at"].isoformat(), "lines": r["data"]["lines"]}
        for r in rows
    ]
