"""Runs, sweeps, metric series, summaries, the event store and artifacts."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from apps.catalog.models import Benchmark, DatasetVersion, Method, ModelEntry, OwnedModel


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


class Sweep(OwnedModel):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="sweeps")
    method = models.ForeignKey(Method, on_delete=models.PROTECT, related_name="sweeps")
    model = models.ForeignKey(
        ModelEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="sweeps"
    )
    benchmark_config = models.JSONField(default=dict, blank=True)
    method_config = models.JSONField(default=dict, blank=True)
    grid = models.JSONField(
        default=dict, help_text="'benchmark.<field>' or 'method.<field>' -> list of values"
    )
    seeds = models.JSONField(default=list)
    name = models.CharField(max_length=200, blank=True)


class Run(OwnedModel):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="runs")
    method = models.ForeignKey(Method, on_delete=models.PROTECT, related_name="runs")
    model = models.ForeignKey(
        ModelEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="runs"
    )
    sweep = models.ForeignKey(
        Sweep, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    retry_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries"
    )
    pool = models.ForeignKey("pools.WorkerPool", on_delete=models.PROTECT, related_name="runs")
    benchmark_config = models.JSONField(default=dict, blank=True)
    method_config = models.JSONField(default=dict, blank=True)
    # Same configuration, different seeds => same hash: the leaderboard groups on it.
    config_hash = models.CharField(max_length=16, db_index=True)
    seed = models.BigIntegerField(default=0)
    name = models.CharField(max_length=200, blank=True)

    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    attempt = models.PositiveIntegerField(default=1)
    cancel_requested = models.BooleanField(default=False)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.ForeignKey(
        "pools.Worker", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    worker_name = models.CharField(max_length=255, blank=True)
    device = models.CharField(max_length=200, blank=True)

    progress_done = models.FloatField(default=0)
    progress_total = models.FloatField(default=0)
    progress_note = models.CharField(max_length=300, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    status_reason = models.CharField(max_length=500, blank=True)
    error = models.TextField(blank=True)
    traceback = models.TextField(blank=True)
    failed_by_platform = models.BooleanField(default=False)
    # A run whose result merges the chunk runs of a sharded sweep (it did not execute itself).
    merged_from = models.ForeignKey(
        Sweep, null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_runs"
    )
    is_chunk = models.BooleanField(default=False, help_text="one chunk of a sharded evaluation")

    code_version = models.CharField(max_length=64, blank=True)
    package_versions = models.JSONField(default=dict, blank=True)
    dataset_versions = models.ManyToManyField(DatasetVersion, blank=True, related_name="runs")
    datasets_used = models.JSONField(
        default=dict, blank=True, help_text="dataset name -> content hash"
    )
    event_seq = models.PositiveBigIntegerField(default=0, help_text="seq of the last stored event")

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["status", "pool"]),
            models.Index(fields=["benchmark", "status"]),
            models.Index(fields=["status", "heartbeat_at"]),
            # Run lists COUNT the visible runs under any of the list filters: with every filter
            # column in the index, PostgreSQL counts from it alone (index-only scan) instead of
            # reading the wide run rows (100,000 runs: 95 -> ~25 ms; bench/leaderboard_scale.py).
            models.Index(
                fields=["visibility", "team", "owner"],
                include=["benchmark", "method", "model", "pool", "status", "sweep"],
                name="run_visible_list_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in RunStatus]), name="run_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(progress_done__gte=0), name="run_progress_nonnegative"
            ),
        ]

    def __str__(self) -> str:
        return f"run {self.pk} {self.benchmark_id}/{self.method_id}"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def progress_percent(self) -> float:
        if self.status == RunStatus.SUCCEEDED:
            return 100.0
        return (
            round(100.0 * self.progress_done / self.progress_total, 1)
            if self.progress_total
            else 0.0
        )


class MetricPoint(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="points")
    key = models.CharField(max_length=100)
    step = models.BigIntegerField()
    value = models.FloatField(null=True)

    class Meta:
        indexes = [models.Index(fields=["run", "key", "step"])]

    def __str__(self) -> str:
        return f"run {self.run_id} {self.key}@{self.step}={self.value}"


class SummaryMetric(models.Model):
    """One final metric of a finished run, in a table so leaderboards aggregate in SQL."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="summary_metrics")
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=100)
    value = models.FloatField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="summary_metric_unique")]
        indexes = [models.Index(fields=["benchmark", "key"])]

    def __str__(self) -> str:
        return f"run {self.run_id} {self.key}={self.value}"


class RunEvent(models.Model):
    """Everything a run page shows, stored before it is announced (DESIGN.md section 5)."""

    class Kind(models.TextChoices):
        STATUS = "status"
        PROGRESS = "progress"
        METRICS = "metrics"
        LOG = "log"
        SUMMARY = "summary"
        ARTIFACT = "artifact"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="run_event_seq_unique")]

    def __str__(self) -> str:
        return f"run {self.run_id} #{self.seq} {self.kind}"


class Artifact(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="artifacts")
    name = models.CharField(max_length=200)
    file = models.FileField(upload_to="artifacts/")
    content_type = models.CharField(max_length=100, default="application/octet-stream")
    size_bytes = models.PositiveBigIntegerField(default=0)
    private = models.BooleanField(default=False, help_text="kept on the server; never served")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="artifact_name_unique")]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"run {self.run_id} {self.name}"
