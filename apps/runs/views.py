"""Browser pages: dashboard, launch form, run list, live run page, compare."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.catalog.api_common import django_errors
from apps.catalog.models import Benchmark, Method
from apps.catalog.selectors import benchmarks_active, models_visible
from apps.runs import selectors, services
from apps.runs.forms import parse_submitted, schema_fields
from apps.runs.models import Run


@login_required
def home(request):
    runs = selectors.runs_for_table(selectors.runs_visible(request.user)).order_by("-id")[:15]
    return render(request, "runs/home.html", {"benchmarks": benchmarks_active(), "runs": runs})


@login_required
def launch(request):
    benchmarks = list(benchmarks_active())
    bench_name = (
        request.GET.get("benchmark")
        or request.POST.get("benchmark")
        or (benchmarks[0].name if benchmarks else "")
    )
    bench = get_object_or_404(Benchmark, name=bench_name, active=True) if bench_name else None
    methods = (
        list(
            bench.methods.filter(active=True, submission_only=False).order_by("is_baseline", "name")
        )
        if bench
        else []
    )
    method_name = (
        request.GET.get("method")
        or request.POST.get("method")
        or (methods[0].name if methods else "")
    )
    method = next((m for m in methods if m.name == method_name), None)
    if bench and method is None and method_name:
        raise Http404(f"method {method_name!r} does not run on {bench.name}")
    bench_fields = schema_fields(bench.config_schema, "benchmark_config") if bench else []
    method_fields = schema_fields(method.config_schema, "method_config") if method else []
    errors: dict[str, list[str]] = {}
    form = {
        "seeds": request.POST.get("seeds", "0"),
        "grid": request.POST.get("grid", ""),
        "name": request.POST.get("name", ""),
        "model": request.POST.get("model", ""),
    }
    if request.method == "POST" and bench and method:
        bconf, e1 = parse_submitted(bench_fields, request.POST)
        mconf, e2 = parse_submitted(method_fields, request.POST)
        errors.update(e1)
        errors.update(e2)
        seeds = _parse_seeds(form["seeds"], errors)
        grid = {}
        if form["grid"].strip():
            try:
                grid = json.loads(form["grid"])
            except json.JSONDecodeError as exc:
                errors["grid"] = [f"not valid JSON: {exc.msg}"]
        if errors:
            # Show range errors of the fields that did parse too, all at once.
            try:
                services.configs_validate(bench, method, bconf, mconf)
            except ValidationError as exc:
                for key, reasons in django_errors(exc).items():
                    errors.setdefault(key, reasons)
        else:
            try:
                common = {
                    "user": request.user,
                    "benchmark": bench.name,
                    "method": method.name,
                    "model": form["model"] or None,
                    "benchmark_config": bconf,
                    "method_config": mconf,
                    "name": form["name"],
                }
                if len(seeds) == 1 and not grid:
                    run = services.run_submit(seed=seeds[0], **common)
                    return redirect("run-detail", run_id=run.pk)
                sweep = services.sweep_submit(seeds=seeds, grid=grid, **common)
                messages.success(request, f"Sweep {sweep.pk}: {sweep.runs.count()} runs queued.")
                return redirect("sweep-detail", sweep_id=sweep.pk)
            except ValidationError as exc:
                errors.update(django_errors(exc))
    status = 400 if errors else 200
    for f in bench_fields + method_fields:
        f.errors = errors.pop(f.name, [])
    return render(
        request,
        "runs/launch.html",
        {
            "benchmarks": benchmarks,
            "bench": bench,
            "methods": methods,
            "method": method,
            "bench_fields": bench_fields,
            "method_fields": method_fields,
            "errors": errors,
            "form": form,
            "models": list(models_visible(request.user))
            if method and method.requires_model
            else [],
        },
        status=status,
    )


def _parse_seeds(raw: str, errors: dict) -> list[int]:
    try:
        seeds = [int(s) for s in raw.replace(" ", "").split(",") if s != ""]
    except ValueError:
        errors["seeds"] = ["comma-separated integers, e.g. 0,1,2"]
        return [0]
    if not seeds:
        errors["seeds"] = ["give at least one seed"]
    return seeds or [0]


@login_required
def run_list(request):
    filters = {f: request.GET[f] for f in ("benchmark", "method", "status") if request.GET.get(f)}
    sweep = request.GET.get("sweep", "")
    if sweep.isdigit():
        filters["sweep"] = sweep
    qs = selectors.runs_filter(
        selectors.runs_visible(request.user),
        benchmark=filters.get("benchmark", ""),
        method=filters.get("method", ""),
        statuses=[filters["status"]] if "status" in filters else None,
        sweep_id=int(sweep) if sweep.isdigit() else None,
    ).order_by("-id")
    return render(
        request,
        "runs/list.html",
        {
            "runs": selectors.runs_for_table(qs)[:200],
            "filters": filters,
            "benchmarks": Benchmark.objects.filter(active=True),
            "methods": Method.objects.filter(active=True),
        },
    )


def _visible_run(request, run_id: int) -> Run:
    run = get_object_or_404(selectors.runs_visible(request.user), pk=run_id)
    return run


@login_required
def run_detail(request, run_id: int):
    run = _visible_run(request, run_id)
    metrics = run.benchmark.metrics
    return render(
        request,
        "runs/detail.html",
        {
            "run": run,
            "metrics_json": metrics,
            "can_modify": selectors.run_can_modify(request.user, run),
            "artifacts": run.artifacts.filter(private=False),
            "retries": run.retries.all(),
        },
    )


@login_required
@require_POST
def run_cancel_view(request, run_id: int):
    run = _visible_run(request, run_id)
    if not selectors.run_can_modify(request.user, run):
        return HttpResponseBadRequest("you cannot cancel this run")
    try:
        services.run_cancel(run=run)
        messages.info(request, "Cancellation requested.")
    except ValidationError as exc:
        messages.error(request, "; ".join(exc.messages))
    return redirect("run-detail", run_id=run.pk)


@login_required
@require_POST
def run_retry_view(request, run_id: int):
    run = _visible_run(request, run_id)
    if not selectors.run_can_modify(request.user, run):
        return HttpResponseBadRequest("you cannot retry this run")
    try:
        new = services.run_retry(run=run, user=request.user)
    except ValidationError as exc:
        messages.error(request, "; ".join(exc.messages))
        return redirect("run-detail", run_id=run.pk)
    return redirect("run-detail", run_id=new.pk)


@login_required
def compare(request):
    raw = request.GET.getlist("ids") or request.GET.get("ids", "").split(",")
    ids = sorted({int(x) for x in raw if str(x).isdigit()})[:12]
    runs = list(selectors.runs_visible(request.user).filter(pk__in=ids).order_by("id"))
    series = {run.pk: selectors.run_metric_series(run) for run in runs}
    keys = sorted({k for s in series.values() for k in s})
    config_keys = sorted(
        {f"benchmark.{k}" for r in runs for k in r.benchmark_config}
        | {f"method.{k}" for r in runs for k in r.method_config}
    )

    def config_value(run, key):
        section, name = key.split(".", 1)
        return (run.benchmark_config if section == "benchmark" else run.method_config).get(
            name, "—"
        )

    config_rows = []
    for key in ["benchmark", "method", "seed"] + config_keys:
        if key == "benchmark":
            values = [r.benchmark.name for r in runs]
        elif key == "method":
            values = [r.method.name for r in runs]
        elif key == "seed":
            values = [r.seed for r in runs]
        else:
            values = [config_value(r, key) for r in runs]
        config_rows.append(
            {
                "key": key,
                "values": values,
                "differs": len({json.dumps(v, default=str) for v in values}) > 1,
            }
        )
    summary_keys = sorted({k for r in runs for k in r.summary})
    metric_rows = [{"key": k, "values": [r.summary.get(k) for r in runs]} for k in summary_keys]
    return render(
        request,
        "runs/compare.html",
        {
            "runs": runs,
            "config_rows": config_rows,
            "metric_rows": metric_rows,
            "series_json": {str(k): v for k, v in series.items()},
            "keys": keys,
            "labels_json": {str(r.pk): f"#{r.pk} {r.method.name} s{r.seed}" for r in runs},
        },
    )


@login_required
def sweep_detail(request, sweep_id: int):
    from apps.runs.models import Sweep

    sweep = get_object_or_404(
        Sweep.objects.filter(selectors.visible_q(request.user)).select_related(
            "benchmark", "method"
        ),
        pk=sweep_id,
    )
    runs = list(selectors.runs_visible(request.user).filter(sweep=sweep).order_by("id"))
    merged = list(Run.objects.filter(merged_from=sweep).order_by("id"))
    return render(request, "runs/sweep.html", {"sweep": sweep, "runs": runs, "merged": merged})
