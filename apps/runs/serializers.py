from __future__ import annotations

from rest_framework import serializers

from apps.runs.models import Artifact, Run, Sweep


class RunSerializer(serializers.ModelSerializer):
    benchmark = serializers.SlugRelatedField(read_only=True, slug_field="name")
    method = serializers.SlugRelatedField(read_only=True, slug_field="name")
    model = serializers.SlugRelatedField(read_only=True, slug_field="name")
    pool = serializers.SlugRelatedField(read_only=True, slug_field="name")
    owner = serializers.SlugRelatedField(read_only=True, slug_field="username")
    progress_percent = serializers.FloatField(read_only=True)

    class Meta:
        model = Run
        fields = [
            "id",
            "name",
            "benchmark",
            "method",
            "model",
            "pool",
            "owner",
            "visibility",
            "sweep",
            "retry_of",
            "benchmark_config",
            "method_config",
            "config_hash",
            "seed",
            "status",
            "status_reason",
            "attempt",
            "cancel_requested",
            "created_at",
            "started_at",
            "finished_at",
            "heartbeat_at",
            "worker_name",
            "device",
            "progress_done",
            "progress_total",
            "progress_note",
            "progress_percent",
            "summary",
            "error",
            "traceback",
            "code_version",
            "package_versions",
            "datasets_used",
            "event_seq",
            "is_chunk",
            "merged_from",
        ]


class RunSubmitSerializer(serializers.Serializer):
    benchmark = serializers.CharField(max_length=80)
    method = serializers.CharField(max_length=80)
    model = serializers.CharField(
        max_length=120, required=False, allow_blank=True, allow_null=True, default=None
    )
    benchmark_config = serializers.JSONField(required=False, default=dict)
    method_config = serializers.JSONField(required=False, default=dict)
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    pool = serializers.CharField(
        max_length=64, required=False, allow_blank=True, allow_null=True, default=None
    )
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    visibility = serializers.ChoiceField(choices=["public", "team"], default="public")


class SweepSubmitSerializer(serializers.Serializer):
    benchmark = serializers.CharField(max_length=80)
    method = serializers.CharField(max_length=80)
    model = serializers.CharField(
        max_length=120, required=False, allow_blank=True, allow_null=True, default=None
    )
    benchmark_config = serializers.JSONField(required=False, default=dict)
    method_config = serializers.JSONField(required=False, default=dict)
    seeds = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=2**31 - 1),
        min_length=1,
        max_length=500,
        required=False,
        default=[0],
    )
    grid = serializers.JSONField(required=False, default=dict)
    pool = serializers.CharField(
        max_length=64, required=False, allow_blank=True, allow_null=True, default=None
    )
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    shards = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=1000,
        help_text="split each configuration into this many chunk runs, merged at the end",
    )


class SweepSerializer(serializers.ModelSerializer):
    benchmark = serializers.SlugRelatedField(read_only=True, slug_field="name")
    method = serializers.SlugRelatedField(read_only=True, slug_field="name")
    runs = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Sweep
        fields = [
            "id",
            "name",
            "benchmark",
            "method",
            "benchmark_config",
            "method_config",
            "grid",
            "seeds",
            "runs",
            "merged_runs",
            "created_at",
        ]

    merged_runs = serializers.PrimaryKeyRelatedField(many=True, read_only=True)


class ArtifactSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Artifact
        fields = ["name", "content_type", "size_bytes", "created_at", "url"]

    def get_url(self, obj) -> str:
        return f"/api/runs/{obj.run_id}/artifacts/{obj.name}/"
