from __future__ import annotations

import csv
import io

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.catalog.models import Benchmark
from apps.leaderboards.selectors import leaderboard, leaderboard_csv_rows


def board_from_request(request, name: str) -> dict:
    bench = get_object_or_404(Benchmark, name=name)
    params = request.query_params if hasattr(request, "query_params") else request.GET
    split = lambda key: [v for v in params.get(key, "").split(",") if v]  # noqa: E731
    order = params.get("order")
    if order not in (None, "", "asc", "desc"):
        raise serializers.ValidationError({"order": "must be 'asc' or 'desc'"})
    sort = params.get("sort") or None
    all_columns = params.get("columns") == "all"
    if sort and not all_columns and sort not in [m["name"] for m in bench.metrics]:
        raise serializers.ValidationError({"sort": f"unknown metric {sort!r}"})
    if params.get("columns") not in (None, "", "all", "declared"):
        raise serializers.ValidationError({"columns": "must be 'declared' or 'all'"})
    return leaderboard(benchmark=bench, user=request.user, methods=split("method"), models=split("model"),
                       sort=sort, descending=None if not order else order == "desc", all_columns=all_columns)


def board_csv_response(board: dict) -> HttpResponse:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for line in leaderboard_csv_rows(board):
        writer.writerow(line)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{board["benchmark"]}-leaderboard.csv"'
    return response


class LeaderboardView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("sort", str), OpenApiParameter("order", str, enum=["asc", "desc"]),
                    OpenApiParameter("method", str, description="comma-separated"),
                    OpenApiParameter("model", str, description="comma-separated"),
                    OpenApiParameter("export", str, enum=["json", "csv"]),
                    OpenApiParameter("columns", str, enum=["declared", "all"], description="all: every logged summary key")],
        responses={200: serializers.DictField()},
    )
    def get(self, request, name: str):
        board = board_from_request(request, name)
        if request.query_params.get("export") == "csv":
            return board_csv_response(board)
        return Response(board)
