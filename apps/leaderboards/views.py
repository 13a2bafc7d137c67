from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from rest_framework.exceptions import ValidationError as ApiValidationError

from apps.catalog.models import Benchmark, ModelEntry
from apps.leaderboards.api import board_csv_response, board_options
from apps.leaderboards.selectors import board_declared_only, leaderboard
from apps.runs.models import Run
from workers.core.plugin import Benchmark as BenchmarkPlugin


@login_required
@require_POST
def predictions_upload(request, name: str):
    from apps.catalog.api_common import django_errors
    from apps.runs.submissions import predictions_submit

    split = request.POST.get("split", "test")
    try:
        run = predictions_submit(
            user=request.user,
            benchmark=name,
            uploaded=request.FILES.get("file"),
            benchmark_config={"split": split} if split else {},
            name=request.POST.get("name", ""),
        )
    except ValidationError as exc:
        for field, reasons in django_errors(exc).items():
            messages.error(request, f"{field}: {'; '.join(reasons)}")
        return redirect("benchmark-detail", name=name)
    return redirect("run-detail", run_id=run.pk)


@login_required
def benchmark_detail(request, name: str):
    bench = get_object_or_404(Benchmark.objects.select_related("paper"), name=name)
    try:
        options = board_options(request, bench)
    except ApiValidationError as exc:
        return JsonResponse({"errors": exc.detail}, status=400)
    export = request.GET.get("export")
    figure_plugin = None if export else _figure_plugin(bench)
    if figure_plugin is None:
        board, figure = leaderboard(**options), None
    else:
        # One board for both: the figure reads every column, the table the declared ones.
        full = leaderboard(**{**options, "all_columns": True})
        board = full if options["all_columns"] else board_declared_only(full, bench.metrics)
        figure = _comparison_figure(figure_plugin, full)
    if export == "csv":
        return board_csv_response(board)
    if export == "json":
        return JsonResponse(board, json_dumps_params={"indent": 1})
    return render(
        request,
        "leaderboards/benchmark.html",
        {
            "comparison_figure": figure,
            "bench": bench,
            "board": board,
            "methods": bench.methods.filter(active=True).order_by("name"),
            "selected_methods": [m for m in request.GET.get("method", "").split(",") if m],
            # EXISTS per model instead of DISTINCT over a join with every run of the benchmark.
            "models": ModelEntry.objects.filter(
                Exists(Run.objects.filter(model=OuterRef("pk"), benchmark=bench))
            ).order_by("name"),
            "takes_predictions": bench.methods.filter(submission_only=True, active=True).exists(),
        },
    )


def _figure_plugin(bench: Benchmark) -> type[BenchmarkPlugin] | None:
    """The benchmark's plugin when it draws its own comparison figure (leaderboard_figure
    overridden), else None, so boards without one skip the all-columns query."""
    from workers.core import registry

    try:
        plugin = registry.get_benchmark(bench.name)
    except registry.UnknownPlugin:
        return None
    if plugin.leaderboard_figure.__func__ is BenchmarkPlugin.leaderboard_figure.__func__:
        return None
    return plugin


def _comparison_figure(plugin: type[BenchmarkPlugin], board: dict) -> dict | None:
    """The plugin's comparison figure of an all-columns board as Plotly JSON; None when the
    board is empty or the plugin finds nothing to compare in its rows."""
    if not board["rows"]:
        return None
    try:
        figure = plugin.leaderboard_figure(board)
    except ValueError:
        return None
    return json.loads(figure.to_json()) if figure is not None else None
