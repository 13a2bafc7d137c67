from __future__ import annotations

from django.http import FileResponse, Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from apps.runs import selectors, services
from apps.runs.events import events_after
from apps.runs.models import Artifact, Sweep
from apps.runs.serializers import (
    ArtifactSerializer,
    RunSerializer,
    RunSubmitSerializer,
    SweepSerializer,
    SweepSubmitSerializer,
)


class LogEntrySerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    ts = serializers.CharField()
    lines = serializers.ListField(child=serializers.CharField(allow_blank=True))


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    data = serializers.JSONField()
    ts = serializers.CharField()


class RunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = RunSerializer

    def get_queryset(self):
        params = self.request.query_params
        sweep = params.get("sweep")
        if sweep and not sweep.isdigit():
            raise serializers.ValidationError({"sweep": "must be an integer id"})
        qs = selectors.runs_filter(
            selectors.runs_visible(self.request.user),
            **{f: params.get(f, "") for f in ("benchmark", "method", "model", "pool")},
            statuses=[s for s in params.get("status", "").split(",") if s],
            sweep_id=int(sweep) if sweep else None,
        )
        if params.get("mine") in ("1", "true"):
            qs = qs.filter(owner=self.request.user)
        return qs.order_by("-id")

    def _modifiable(self, run):
        if not selectors.run_can_modify(self.request.user, run):
            raise PermissionDenied("only the run's owner, its team or staff can change it")

    @extend_schema(request=RunSubmitSerializer, responses={201: RunSerializer})
    def create(self, request, *args, **kwargs):
        ser = RunSubmitSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        run = services.run_submit(user=request.user, **ser.validated_data)
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: RunSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self.get_object()
        self._modifiable(run)
        return Response(RunSerializer(services.run_cancel(run=run)).data)

    @extend_schema(request=None, responses={201: RunSerializer})
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        run = self.get_object()
        self._modifiable(run)
        new = services.run_retry(run=run, user=request.user)
        return Response(RunSerializer(new).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter("keys", str, description="comma-separated metric keys"),
            OpenApiParameter(
                "export", str, enum=["csv"], description="csv: every point as key,step,value"
            ),
        ],
        responses={200: serializers.DictField()},
    )
    @action(detail=True, methods=["get"])
    def metrics(self, request, pk=None):
        keys = [k for k in request.query_params.get("keys", "").split(",") if k]
        export = request.query_params.get("export")
        if export not in (None, "", "csv"):
            raise serializers.ValidationError({"export": "must be 'csv'"})
        run = self.get_object()
        if export == "csv":
            # Streamed: a run's curves can hold millions of points; neither the rows nor the
            # file are ever held in memory whole (the JSON form above is for plotting).
            response = StreamingHttpResponse(
                _served_lazily(request, selectors.run_metric_csv_lines(run, keys or None)),
                content_type="text/csv",
            )
            response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-metrics.csv"'
            return response
        return Response(selectors.run_metric_series(run, keys or None))

    @extend_schema(
        parameters=[OpenApiParameter("after", int)], responses={200: LogEntrySerializer(many=True)}
    )
    @action(detail=True, methods=["get"])
    def logs(self, request, pk=None):
        return Response(
            selectors.run_log_lines(self.get_object(), after=_int_param(request, "after"))
        )

    @extend_schema(
        parameters=[OpenApiParameter("after", int)], responses={200: EventSerializer(many=True)}
    )
    @action(detail=True, methods=["get"])
    def events(self, request, pk=None):
        run = self.get_object()
        return Response(events_after(run_id=run.pk, after=_int_param(request, "after"), limit=2000))

    @extend_schema(responses={200: ArtifactSerializer(many=True)})
    @action(detail=True, methods=["get"])
    def artifacts(self, request, pk=None):
        return Response(
            ArtifactSerializer(self.get_object().artifacts.filter(private=False), many=True).data
        )

    @extend_schema(responses={(200, "application/octet-stream"): bytes})
    @action(detail=True, methods=["get"], url_path=r"artifacts/(?P<name>[A-Za-z0-9._/-]+)")
    def artifact(self, request, pk=None, name=None):
        run = self.get_object()
        art = get_object_or_404(Artifact, run=run, name=name, private=False)
        try:
            handle = art.file.open("rb")
        except FileNotFoundError:
            raise Http404("artifact file is missing from storage") from None
        return FileResponse(handle, content_type=art.content_type, filename=art.name)


def _served_lazily(request, chunks):
    """Under ASGI (Daphne) Django buffers a synchronous iterator whole before sending it; an
    async iterator that pulls each chunk in the request's sync thread streams instead (the
    database cursor stays in that one thread). Under WSGI the iterator is served as it is."""
    from django.core.handlers.asgi import ASGIRequest

    if not isinstance(getattr(request, "_request", request), ASGIRequest):
        return chunks
    from asgiref.sync import sync_to_async

    pull = sync_to_async(lambda: next(chunks, None), thread_sensitive=True)

    async def stream():
        while (chunk := await pull()) is not None:
            yield chunk

    return stream()


def _int_param(request, name: str) -> int:
    raw = request.query_params.get(name, "0")
    try:
        value = int(raw)
    except ValueError:
        raise serializers.ValidationError({name: "must be an integer"}) from None
    if value < 0:
        raise serializers.ValidationError({name: "must be >= 0"})
    return value


class SweepViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = SweepSerializer

    def get_queryset(self):
        from apps.runs.selectors import visible_q

        return (
            Sweep.objects.filter(visible_q(self.request.user))
            .select_related("benchmark", "method")
            .prefetch_related("runs")
            .order_by("-id")
        )

    @extend_schema(request=SweepSubmitSerializer, responses={201: SweepSerializer})
    def create(self, request, *args, **kwargs):
        ser = SweepSubmitSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        sweep = services.sweep_submit(user=request.user, **ser.validated_data)
        return Response(SweepSerializer(sweep).data, status=status.HTTP_201_CREATED)
