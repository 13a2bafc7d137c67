from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response

from apps.catalog import selectors, services
from apps.catalog.models import Paper
from apps.catalog.serializers import (
    BenchmarkSerializer,
    DatasetCreateSerializer,
    DatasetSerializer,
    DatasetVersionSerializer,
    MethodSerializer,
    ModelCreateSerializer,
    ModelEntrySerializer,
    PaperSerializer,
)


class PredictionsUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text='JSONL: one {"id": ..., "answer": ...} per line')
    benchmark_config = serializers.JSONField(required=False, default=dict)
    name = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)


class BenchmarkViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = BenchmarkSerializer
    lookup_field = "name"

    def get_queryset(self):
        return selectors.benchmarks_active()

    @extend_schema(
        request={"multipart/form-data": PredictionsUploadSerializer},
        responses={201: serializers.DictField()},
    )
    @action(detail=True, methods=["post"], parser_classes=[MultiPartParser, FormParser])
    def predictions(self, request, name=None):
        """Upload predictions for a benchmark split; they are scored server-side in a run."""
        import json

        from apps.runs.serializers import RunSerializer
        from apps.runs.submissions import predictions_submit

        ser = PredictionsUploadSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        config = ser.validated_data["benchmark_config"]
        if isinstance(config, str):
            try:
                config = json.loads(config or "{}")
            except json.JSONDecodeError:
                raise serializers.ValidationError({"benchmark_config": "not valid JSON"}) from None
        run = predictions_submit(
            user=request.user,
            benchmark=self.get_object().name,
            uploaded=ser.validated_data["file"],
            benchmark_config=config,
            name=ser.validated_data["name"],
        )
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


class MethodViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = MethodSerializer
    lookup_field = "name"

    def get_queryset(self):
        qs = selectors.methods_active()
        if bench := self.request.query_params.get("benchmark"):
            qs = qs.filter(benchmarks__name=bench)
        return qs


class PaperViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = PaperSerializer
    lookup_field = "key"
    queryset = Paper.objects.order_by("key")


class DatasetViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    lookup_field = "name"
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    def get_queryset(self):
        qs = selectors.datasets_visible(self.request.user)
        if bench := self.request.query_params.get("benchmark"):
            qs = qs.filter(benchmark__name=bench)
        return qs.order_by("name")

    def get_serializer_class(self):
        return DatasetCreateSerializer if self.action == "create" else DatasetSerializer

    @extend_schema(request=DatasetCreateSerializer, responses={201: DatasetVersionSerializer})
    def create(self, request, *args, **kwargs):
        ser = DatasetCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        d = ser.validated_data
        common = {
            "name": d["name"],
            "user": request.user,
            "description": d["description"],
            "visibility": d["visibility"],
        }
        if d.get("file") is not None:
            version = services.dataset_version_create_upload(
                uploaded=d["file"], benchmark=d["benchmark"] or None, **common
            )
        elif d.get("url"):
            version = services.dataset_version_create_url(
                url=d["url"], sha256=d["sha256"], benchmark=d["benchmark"] or None, **common
            )
        else:
            version = services.dataset_version_create_generator(
                params=d["params"], benchmark=d["benchmark"], **common
            )
        return Response(DatasetVersionSerializer(version).data, status=status.HTTP_201_CREATED)


class ModelViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    lookup_field = "name"

    def get_queryset(self):
        return selectors.models_visible(self.request.user).order_by("name")

    def get_serializer_class(self):
        return ModelCreateSerializer if self.action == "create" else ModelEntrySerializer

    @extend_schema(request=ModelCreateSerializer, responses={201: ModelEntrySerializer})
    def create(self, request, *args, **kwargs):
        ser = ModelCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        entry = services.model_register(user=request.user, **ser.validated_data)
        return Response(ModelEntrySerializer(entry).data, status=status.HTTP_201_CREATED)
