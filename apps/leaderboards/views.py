from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from rest_framework.exceptions import ValidationError

from apps.catalog.models import Benchmark
from apps.leaderboards.api import board_csv_response, board_from_request


@login_required
def benchmark_detail(request, name: str):
    bench = get_object_or_404(Benchmark.objects.select_related("paper"), name=name)
    try:
        board = board_from_request(request, name)
    except ValidationError as exc:
        return JsonResponse({"errors": exc.detail}, status=400)
    export = request.GET.get("export")
    if export == "csv":
        return board_csv_response(board)
    if export == "json":
        return JsonResponse(board, json_dumps_params={"indent": 1})
    return render(request, "leaderboards/benchmark.html", {
        "bench": bench, "board": board, "methods": bench.methods.filter(active=True).order_by("name"),
        "selected_methods": [m for m in request.GET.get("method", "").split(",") if m],
    })
