from __future__ import annotations

from rest_framework import serializers

from apps.catalog.models import Benchmark, Dataset, DatasetVersion, Method, ModelEntry, Paper


class PaperSerializer(serializers.ModelSerializer):
    class Meta:
        model = Paper
        fields = [
            "key",
            "title",
            "authors",
            "venue",
            "year",
            "abstract",
            "headline_claim",
            "code_url",
            "url",
            "claim",
        ]


class BenchmarkSerializer(serializers.ModelSerializer):
    paper = PaperSerializer(read_only=True, allow_null=True)
    methods = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")

    class Meta:
        model = Benchmark
        fields = [
            "name",
            "title",
            "description",
            "paper",
            "metrics",
            "config_schema",
            "datasets",
            "methods",
            "active",
            "results_version",
        ]


class MethodSerializer(serializers.ModelSerializer):
    paper = PaperSerializer(read_only=True, allow_null=True)
    benchmarks = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")

    class Meta:
        model = Method
        fields = [
            "name",
            "title",
            "description",
            "paper",
            "benchmarks",
            "config_schema",
            "is_baseline",
            "requires_model",
            "submission_only",
            "active",
        ]


class DatasetVersionSerializer(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(read_only=True, slug_field="name")

    class Meta:
        model = DatasetVersion
        fields = [
            "id",
            "dataset",
            "version",
            "source",
            "status",
            "content_hash",
            "url",
            "params",
            "size_bytes",
            "error",
            "created_at",
        ]


class DatasetSerializer(serializers.ModelSerializer):
    versions = DatasetVersionSerializer(many=True, read_only=True)
    benchmark = serializers.SlugRelatedField(read_only=True, slug_field="name")

    class Meta:
        model = Dataset
        fields = ["id", "name", "description", "benchmark", "visibility", "created_at", "versions"]


class DatasetCreateSerializer(serializers.Serializer):
    """Register a dataset version from exactly one source: file, url (+ sha256), or generator params."""

    name = serializers.SlugField(max_length=120)
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=5000
    )
    benchmark = serializers.SlugField(required=False, allow_blank=True, default="")
    visibility = serializers.ChoiceField(choices=["public", "team"], default="public")
    file = serializers.FileField(required=False)
    url = serializers.CharField(required=False, max_length=1000)
    sha256 = serializers.CharField(required=False, max_length=64)
    params = serializers.JSONField(required=False)

    def validate(self, attrs):
        sources = [k for k in ("file", "url", "params") if attrs.get(k) not in (None, "")]
        if len(sources) != 1:
            raise serializers.ValidationError(
                {"source": "give exactly one of file, url (with sha256) or params (generator)"}
            )
        if "url" in sources and not attrs.get("sha256"):
            raise serializers.ValidationError({"sha256": "required with url"})
        if "params" in sources and not attrs.get("benchmark"):
            raise serializers.ValidationError(
                {"benchmark": "a generated dataset names the benchmark whose generator makes it"}
            )
        return attrs


class ModelEntrySerializer(serializers.ModelSerializer):
    has_stored_key = serializers.BooleanField(read_only=True)

    class Meta:
        model = ModelEntry
        fields = [
            "id",
            "name",
            "kind",
            "base_url",
            "model_id",
            "path",
            "api_key_env",
            "has_stored_key",
            "options",
            "description",
            "visibility",
            "created_at",
        ]


class ModelCreateSerializer(serializers.Serializer):
    name = serializers.SlugField(max_length=120)
    kind = serializers.ChoiceField(choices=ModelEntry.Kind.values)
    base_url = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    model_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    path = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    api_key = serializers.CharField(
        required=False, allow_blank=True, default="", write_only=True, max_length=500
    )
    api_key_env = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=100
    )
    options = serializers.JSONField(required=False, default=dict)
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=5000
    )
    visibility = serializers.ChoiceField(choices=["public", "team"], default="public")
