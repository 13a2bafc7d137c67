from __future__ import annotations

import csv

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.catalog.models import Benchmark
from apps.leaderboards.selectors import DEFAULT_LIMIT, leaderboard, leaderboard_csv_rows

MAX_LIMIT = 10_000


def board_from_request(request, name: str) -> dict:
    """The leaderboard under the request's filters."""
    return leaderboard(**board_options(request, get_object_or_404(Benchmark, name=name)))


def board_options(request, bench: Benchmark) -> dict:
    """The keyword arguments of `selectors.leaderboard` the request asks for, validated."""
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
    # Exports carry every row; pages carry `limit` rows from `offset` (DEFAULT_LIMIT unless asked).
    export = params.get("export") in ("csv", "json")
    limit = None if export else _bounded_int(params, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = 0 if export else _bounded_int(params, "offset", 0, 0, 10**9)
    return {
        "benchmark": bench,
        "user": request.user,
        "methods": split("method"),
        "models": split("model"),
        "sort": sort,
        "descending": None if not order else order == "desc",
        "all_columns": all_columns,
        "limit": limit,
        "offset": offset,
    }


def _bounded_int(params, name: str, default: int, low: int, high: int) -> int:
    raw = params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise serializers.ValidationError({name: "must be an integer"}) from None
    if not low <= value <= high:
        raise serializers.ValidationError({name: f"must be in [{low}, {high}]"})
    return value


def board_csv_response(board: dict) -> HttpResponse:
    """Rows are written straight into the response (no intermediate string of the whole file)."""
    response = HttpResponse(content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{board["benchmark"]}-leaderboard.csv"'
    writer = csv.writer(response)
    for line in leaderboard_csv_rows(board):
        writer.writerow(line)
    return response


class LeaderboardView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("sort", str),
            OpenApiParameter("order", str, enum=["asc", "desc"]),
            OpenApiParameter("method", str, description="comma-separated"),
            OpenApiParameter("model", str, description="comma-separated"),
            OpenApiParameter("export", str, enum=["json", "csv"]),
            OpenApiParameter(
                "columns",
                str,
                enum=["declared", "all"],
                description="all: every logged summary key",
            ),
            OpenApiParameter(
                "limit", int, description=f"rows per page (default {DEFAULT_LIMIT}; exports: all)"
            ),
            OpenApiParameter("offset", int, description="rank of the first row minus one"),
        ],
        responses={200: serializers.DictField()},
    )
    def get(self, request, name: str):
        board = board_from_request(request, name)
        if request.query_params.get("export") == "csv":
            return board_csv_response(board)
        return Response(board)
