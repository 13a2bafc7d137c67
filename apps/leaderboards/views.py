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
from apps.leaderboards.api import board_csv_response, board_from_request
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
        board = board_from_request(request, name)
    except ApiValidationError as exc:
        return JsonResponse({"errors": exc.detail}, status=400)
    export = request.GET.get("export")
    if export == "csv":
        return board_csv_response(board)
    if export == "json":
        return JsonResponse(board, json_dumps_params={"indent": 1})
    return render(
        request,
        "leaderboards/benchmark.html",
        {
            "comparison_figure": _comparison_figure(request, bench),
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


def _comparison_figure(request, bench: Benchmark) -> dict | None:
    """The plugin's own comparison figure (Benchmark.leaderboard_figure) as Plotly JSON, from
    the leaderboard with every column under the page's filters; None when it has none."""
    from workers.core import registry

    try:
        plugin = registry.get_benchmark(bench.name)
    except registry.UnknownPlugin:
        return None
    if plugin.leaderboard_figure.__func__ is BenchmarkPlugin.leaderboard_figure.__func__:
        return None  # not overridden: skip the all-columns query
    board = board_from_request(request, bench.name, all_columns=True)
    if not board["rows"]:
        return None
    try:
        figure = plugin.leaderboard_figure(board)
    except ValueError:  # the plugin found nothing to compare in these rows
        return None
    return json.loads(figure.to_json()) if figure is not None else None
