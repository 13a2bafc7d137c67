from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from rest_framework.exceptions import ValidationError as ApiValidationError

from apps.catalog.models import Benchmark, ModelEntry
from apps.leaderboards.api import board_csv_response, board_from_request


@login_required
@require_POST
def predictions_upload(request, name: str):
    from apps.catalog.api_common import django_errors
    from apps.runs.submissions import predictions_submit

    split = request.POST.get("split", "test")
    try:
        run = predictions_submit(user=request.user, benchmark=name, uploaded=request.FILES.get("file"),
                                 benchmark_config={"split": split} if split else {}, name=request.POST.get("name", ""))
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
    return render(request, "leaderboards/benchmark.html", {
        "bench": bench, "board": board, "methods": bench.methods.filter(active=True).order_by("name"),
        "selected_methods": [m for m in request.GET.get("method", "").split(",") if m],
        "models": ModelEntry.objects.filter(runs__benchmark=bench).distinct().order_by("name"),
        "takes_predictions": bench.methods.filter(submission_only=True, active=True).exists(),
    })
