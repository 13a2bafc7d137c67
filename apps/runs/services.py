"""Writes for runs: submit, sweep, cancel, retry, dispatch, finish."""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.catalog.models import Benchmark, Method, ModelEntry
from apps.leaderboards.aggregates import cells_add, cells_lock
from apps.pools.models import WorkerPool
from apps.pools.services import pool_get_default
from apps.runs.events import announce, benchmark_group, event_append
from apps.runs.models import TERMINAL, Run, RunStatus, SummaryMetric, Sweep
from workers.core import registry
from workers.core.config import ConfigError

log = logging.getLogger(__name__)

MAX_SWEEP_RUNS = 500


def config_hash(benchmark_config: dict, method_config: dict, model_id: int | None) -> str:
    payload = json.dumps(
        {"b": benchmark_config, "m": method_config, "model": model_id}, sort_keys=True, default=str
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def configs_validate(
    benchmark: Benchmark, method: Method, benchmark_config: Any, method_config: Any
) -> tuple[dict, dict]:
    """Validate both configs against the plugins' pydantic models; return the normalised dicts
    (defaults filled in) so stored runs say exactly what ran."""
    errors: dict[str, list[str]] = {}
    out = []
    for prefix, cls, data in (
        ("benchmark_config", registry.get_benchmark(benchmark.name), benchmark_config),
        ("method_config", registry.get_method(method.name), method_config),
    ):
        try:
            out.append(cls.validate(data).model_dump(mode="json"))
        except ConfigError as exc:
            for field, reasons in exc.errors.items():
                key = prefix if field == "__all__" else f"{prefix}.{field}"
                errors.setdefault(key, []).extend(reasons)
            out.append({})
    if errors:
        raise ValidationError(errors)
    return out[0], out[1]


def _resolve(
    benchmark: str,
    method: str,
    model: str | None,
    pool: str | None,
    *,
    allow_submission_only: bool = False,
):
    errors: dict[str, str] = {}
    bench = (
        Benchmark.objects.filter(name=benchmark, active=True).first()
        if isinstance(benchmark, str)
        else None
    )
    if bench is None:
        errors["benchmark"] = f"unknown benchmark {benchmark!r}"
    meth = (
        Method.objects.filter(name=method, active=True).first() if isinstance(method, str) else None
    )
    if meth is None:
        errors["method"] = f"unknown method {method!r}"
    elif bench is not None and not meth.benchmarks.filter(pk=bench.pk).exists():
        errors["method"] = f"method {method!r} does not run on benchmark {benchmark!r}"
    elif meth.submission_only and not allow_submission_only:
        errors["method"] = (
            f"method {method!r} scores uploaded predictions: use the predictions upload"
        )
    model_entry = None
    if model:
        model_entry = ModelEntry.objects.filter(name=model).first()
        if model_entry is None:
            errors["model"] = f"unknown model {model!r}"
    elif meth is not None and meth.requires_model:
        errors["model"] = f"method {method!r} needs a registered model"
    pool_obj = None
    if pool:
        pool_obj = WorkerPool.objects.filter(name=pool).first()
        if pool_obj is None:
            errors["pool"] = f"unknown worker pool {pool!r}"
    if errors:
        raise ValidationError(errors)
    return bench, meth, model_entry, pool_obj or pool_get_default()


def _check_quota(user, new_runs: int) -> None:
    """Concurrent-run and daily quotas per team; cancelled and platform-failed runs don't count."""
    if user is None or user.is_staff:
        return
    from apps.accounts.models import Team

    teams = Team.objects.filter(memberships__user=user)
    for team in teams:
        active = Run.objects.filter(
            team=team, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
        ).count()
        if active + new_runs > team.max_concurrent_runs:
            raise ValidationError(
                {
                    "quota": f"team {team.name} may have {team.max_concurrent_runs} queued or running runs; it has {active}"
                }
            )
        since = timezone.now() - timedelta(days=1)
        today = (
            Run.objects.filter(team=team, created_at__gte=since)
            .exclude(status=RunStatus.CANCELLED)
            .exclude(failed_by_platform=True)
            .count()
        )
        if today + new_runs > team.max_runs_per_day:
            raise ValidationError(
                {
                    "quota": f"team {team.name} may submit {team.max_runs_per_day} runs a day; it has {today}"
                }
            )


def _owner_team(user):
    from apps.accounts.services import team_get_or_create_personal

    return team_get_or_create_personal(user=user) if user else None


def _new_run(
    *,
    user,
    team,
    bench,
    meth,
    model_entry,
    pool,
    bconf,
    mconf,
    seed: int,
    sweep=None,
    name: str = "",
    retry_of=None,
    visibility: str = "public",
    is_chunk: bool = False,
) -> Run:
    if not isinstance(seed, int) or isinstance(seed, bool) or not (0 <= seed < 2**31):
        raise ValidationError({"seed": "must be an integer in [0, 2^31)"})
    run = Run(
        owner=user,
        team=team,
        visibility=visibility,
        benchmark=bench,
        method=meth,
        model=model_entry,
        pool=pool,
        benchmark_config=bconf,
        method_config=mconf,
        config_hash=config_hash(bconf, mconf, model_entry.pk if model_entry else None),
        seed=seed,
        sweep=sweep,
        name=name[:200],
        retry_of=retry_of,
        is_chunk=is_chunk,
    )
    # The related rows were just loaded (their existence checks would be 5-6 queries), and the
    # check constraints hold by construction and are enforced by the database anyway.
    related = ["owner", "team", "benchmark", "method", "model", "pool", "sweep", "retry_of"]
    run.full_clean(exclude=["config_hash", *related], validate_constraints=False)
    run.save()
    event_append(
        run_id=run.pk, kind="status", data={"status": RunStatus.QUEUED, "reason": "submitted"}
    )
    transaction.on_commit(lambda: run_dispatch(run_id=run.pk))
    return run


@transaction.atomic
def run_submit(
    *,
    user,
    benchmark: str,
    method: str,
    model: str | None = None,
    benchmark_config: Any = None,
    method_config: Any = None,
    seed: int = 0,
    pool: str | None = None,
    name: str = "",
    visibility: str = "public",
    allow_submission_only: bool = False,
) -> Run:
    bench, meth, model_entry, pool_obj = _resolve(
        benchmark, method, model, pool, allow_submission_only=allow_submission_only
    )
    bconf, mconf = configs_validate(bench, meth, benchmark_config, method_config)
    _check_quota(user, 1)
    return _new_run(
        user=user,
        team=_owner_team(user),
        bench=bench,
        meth=meth,
        model_entry=model_entry,
        pool=pool_obj,
        bconf=bconf,
        mconf=mconf,
        seed=seed,
        name=name,
        visibility=visibility,
    )


def _expand_grid(grid: dict[str, list]) -> list[dict[str, Any]]:
    if not isinstance(grid, dict):
        raise ValidationError(
            {"grid": "must be an object of 'benchmark.<field>' or 'method.<field>' to lists"}
        )
    for key, values in grid.items():
        if not (key.startswith("benchmark.") or key.startswith("method.")):
            raise ValidationError({f"grid.{key}": "keys start with 'benchmark.' or 'method.'"})
        if not isinstance(values, list) or not values:
            raise ValidationError({f"grid.{key}": "must be a non-empty list of values"})
    keys = list(grid)
    return [
        dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k] for k in keys))
    ]


@transaction.atomic
def sweep_submit(
    *,
    user,
    benchmark: str,
    method: str,
    model: str | None = None,
    benchmark_config: Any = None,
    method_config: Any = None,
    seeds: list[int] | None = None,
    grid: dict | None = None,
    pool: str | None = None,
    name: str = "",
    shards: int | None = None,
) -> Sweep:
    """Several seeds and/or a small grid in one submission; each point is validated first, so
    a bad grid value creates no runs at all. `shards=k` splits each configuration of a
    benchmark that supports it into k chunk runs, merged into one result when all finish."""
    bench, meth, model_entry, pool_obj = _resolve(benchmark, method, model, pool)
    if shards is not None:
        chunk_fields = registry.get_benchmark(bench.name).chunk_fields
        if not chunk_fields:
            raise ValidationError(
                {"shards": f"benchmark {bench.name!r} cannot be split into chunks"}
            )
        if not isinstance(shards, int) or isinstance(shards, bool) or not 1 <= shards <= 1000:
            raise ValidationError({"shards": "must be an integer in [1, 1000]"})
        n_field, i_field = chunk_fields
        grid = dict(grid or {})
        if f"benchmark.{i_field}" in grid or f"benchmark.{n_field}" in grid:
            raise ValidationError({"grid": f"do not set {i_field}/{n_field} together with shards"})
        benchmark_config = {**(benchmark_config or {}), n_field: shards}
        grid[f"benchmark.{i_field}"] = list(range(shards))
    seeds = seeds if seeds is not None else [0]
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)
    ):
        raise ValidationError({"seeds": "must be a non-empty list of integers"})
    if len(set(seeds)) != len(seeds):
        raise ValidationError({"seeds": "contains duplicates"})
    points = _expand_grid(grid or {})
    if len(points) * len(seeds) > MAX_SWEEP_RUNS:
        raise ValidationError(
            {
                "grid": f"a sweep may create at most {MAX_SWEEP_RUNS} runs, this one {len(points) * len(seeds)}"
            }
        )
    base_b = (
        dict(benchmark_config or {}) if isinstance(benchmark_config, dict) else benchmark_config
    )
    base_m = dict(method_config or {}) if isinstance(method_config, dict) else method_config
    configs = []
    for point in points:
        b, m = dict(base_b or {}), dict(base_m or {})
        for key, value in point.items():
            section, field = key.split(".", 1)
            (b if section == "benchmark" else m)[field] = value
        try:
            configs.append(configs_validate(bench, meth, b, m))
        except ValidationError as exc:
            raise ValidationError({f"grid point {point}": [str(e) for e in exc.messages]}) from None
    _check_quota(user, len(configs) * len(seeds))
    sweep = Sweep.objects.create(
        owner=user,
        benchmark=bench,
        method=meth,
        model=model_entry,
        benchmark_config=base_b or {},
        method_config=base_m or {},
        grid=grid or {},
        seeds=seeds,
        name=name[:200],
    )
    team = _owner_team(user)
    for bconf, mconf in configs:
        for seed in seeds:
            _new_run(
                user=user,
                team=team,
                bench=bench,
                meth=meth,
                model_entry=model_entry,
                pool=pool_obj,
                bconf=bconf,
                mconf=mconf,
                seed=seed,
                sweep=sweep,
                name=name,
                is_chunk=bool(shards and shards > 1),
            )
    return sweep


def run_dispatch(*, run_id: int) -> bool:
    """Send a queued run to its pool's queue, unless the pool is paused (it waits, held)."""
    from workers.tasks import execute_run

    run = Run.objects.select_related("pool").filter(pk=run_id, status=RunStatus.QUEUED).first()
    if run is None or run.cancel_requested:
        return False
    if not run.pool.accepting:
        Run.objects.filter(pk=run_id).update(dispatched_at=None)
        return False
    # Stamp before publishing: an eager (in-process) execution finishes inside apply_async.
    Run.objects.filter(pk=run_id).update(dispatched_at=timezone.now())
    try:
        execute_run.apply_async(args=[run.pk, run.attempt], queue=run.pool.queue)
    except Exception:
        # No message was sent: leave the run undispatched so reconciliation sends it again.
        Run.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(dispatched_at=None)
        raise
    return True


def runs_dispatch_held(*, pool: WorkerPool) -> int:
    ids = list(
        Run.objects.filter(
            pool=pool, status=RunStatus.QUEUED, dispatched_at__isnull=True
        ).values_list("pk", flat=True)
    )
    for run_id in ids:
        run_dispatch(run_id=run_id)
    return len(ids)


def run_cancel(*, run: Run, reason: str = "cancelled by user") -> Run:
    """Queued runs are cancelled at once; running ones are asked to stop (ctx.check_cancelled)."""
    if run.is_terminal:
        raise ValidationError({"status": f"run is already {run.status}"})
    with transaction.atomic():
        changed = Run.objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
            status=RunStatus.CANCELLED,
            cancel_requested=True,
            finished_at=timezone.now(),
            status_reason=reason,
        )
        if changed:
            event_append(
                run_id=run.pk, kind="status", data={"status": RunStatus.CANCELLED, "reason": reason}
            )
            _bump_benchmark(run.benchmark_id)
        else:
            Run.objects.filter(pk=run.pk).update(cancel_requested=True)
            event_append(run_id=run.pk, kind="log", data={"lines": [f"cancel requested: {reason}"]})
    run.refresh_from_db()
    return run


@transaction.atomic
def run_retry(*, run: Run, user) -> Run:
    """A retry is a new run with the same configuration, linked to the original."""
    if not run.is_terminal:
        raise ValidationError({"status": "only finished, failed or cancelled runs can be retried"})
    _check_quota(user, 1)
    owner = user or run.owner
    return _new_run(
        user=owner,
        team=_owner_team(owner),
        bench=run.benchmark,
        meth=run.method,
        model_entry=run.model,
        pool=run.pool,
        bconf=run.benchmark_config,
        mconf=run.method_config,
        seed=run.seed,
        sweep=run.sweep,
        name=run.name,
        retry_of=run,
        visibility=run.visibility,
    )


def _bump_benchmark(benchmark_id: int) -> None:
    Benchmark.objects.filter(pk=benchmark_id).update(results_version=F("results_version") + 1)
    name = Benchmark.objects.filter(pk=benchmark_id).values_list("name", flat=True).first()
    if name:
        transaction.on_commit(lambda: announce(benchmark_group(name), {"type": "leaderboard.wake"}))


def run_finish(
    *,
    run_id: int,
    attempt: int,
    status: str,
    reason: str = "",
    error: str = "",
    tb: str = "",
    summary: dict | None = None,
    failed_by_platform: bool = False,
) -> bool:
    """Terminal transition, guarded by attempt so a requeued run's old worker cannot overwrite."""
    assert status in TERMINAL
    from apps.runs.context import finite_or_none

    summary = {k: finite_or_none(float(v)) for k, v in (summary or {}).items()}
    with transaction.atomic():
        run = Run.objects.filter(pk=run_id).first()
        if run is None:
            return False
        changed = Run.objects.filter(pk=run_id, status=RunStatus.RUNNING, attempt=attempt).update(
            status=status,
            finished_at=timezone.now(),
            status_reason=reason[:500],
            error=error,
            traceback=tb,
            failed_by_platform=failed_by_platform,
            summary=summary or {},
        )
        if not changed:
            return False
        # Pre-aggregated leaderboard: lock the board before adding summary rows (see
        # apps/leaderboards/aggregates.py for why the order matters), increment in this transaction.
        board_built = (
            status == RunStatus.SUCCEEDED
            and (summary or run.is_chunk)
            and cells_lock(run.benchmark_id)
        )
        if status == RunStatus.SUCCEEDED and summary:
            SummaryMetric.objects.bulk_create(
                [
                    SummaryMetric(run_id=run_id, benchmark_id=run.benchmark_id, key=k, value=v)
                    for k, v in summary.items()
                ],
                ignore_conflicts=True,
            )
            if board_built:
                cells_add(run, summary)
        event_append(
            run_id=run_id,
            kind="status",
            data={"status": status, "reason": reason, "error": error[:2000]},
        )
        _bump_benchmark(run.benchmark_id)
        if run.is_chunk and status == RunStatus.SUCCEEDED:
            from apps.runs.chunks import chunks_merge_if_complete

            merged = chunks_merge_if_complete(run_id=run_id)
            if merged is not None and board_built:
                cells_add(merged, merged.summary)
    return True
