"""Catalogue: papers, benchmarks and methods (synced from the plugin registry), datasets, models."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Visibility(models.TextChoices):
    PUBLIC = "public"
    TEAM = "team"


class Paper(models.Model):
    key = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=400)
    authors = models.JSONField(default=list)
    venue = models.CharField(max_length=200, blank=True)
    year = models.PositiveIntegerField(null=True)
    abstract = models.TextField(blank=True)
    headline_claim = models.TextField(blank=True)
    code_url = models.URLField(blank=True)
    url = models.URLField(blank=True)
    claim = models.JSONField(
        default=dict, help_text="benchmark/method/baseline/metric testing the claim"
    )

    def __str__(self) -> str:
        return self.title


class Benchmark(models.Model):
    name = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    paper = models.ForeignKey(
        Paper, null=True, blank=True, on_delete=models.SET_NULL, related_name="benchmarks"
    )
    metrics = models.JSONField(default=list)
    config_schema = models.JSONField(default=dict)
    datasets = models.JSONField(default=list)
    active = models.BooleanField(
        default=True, help_text="False when its plugin is no longer installed"
    )
    # Bumped whenever a run of this benchmark finishes: leaderboard pages watch it.
    results_version = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def primary_metric(self) -> dict:
        return next(
            (m for m in self.metrics if m.get("primary")), self.metrics[0] if self.metrics else {}
        )


class Method(models.Model):
    name = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    paper = models.ForeignKey(
        Paper, null=True, blank=True, on_delete=models.SET_NULL, related_name="methods"
    )
    benchmarks = models.ManyToManyField(Benchmark, related_name="methods")
    config_schema = models.JSONField(default=dict)
    is_baseline = models.BooleanField(default=False)
    requires_model = models.BooleanField(default=False)
    submission_only = models.BooleanField(
        default=False, help_text="only through a predictions upload"
    )
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class OwnedModel(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    team = models.ForeignKey(
        "accounts.Team", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class Dataset(OwnedModel):
    name = models.SlugField(max_length=120, unique=True)
    description = models.TextField(blank=True)
    benchmark = models.ForeignKey(
        Benchmark, null=True, blank=True, on_delete=models.SET_NULL, related_name="dataset_entries"
    )

    def __str__(self) -> str:
        return self.name


class DatasetVersion(models.Model):
    class Source(models.TextChoices):
        GENERATOR = "generator"
        UPLOAD = "upload"
        URL = "url"
        BUNDLED = "bundled"
        SHARED = "shared"

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        FAILED = "failed"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    source = models.CharField(max_length=16, choices=Source.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.READY)
    content_hash = models.CharField(max_length=64, blank=True, db_index=True)
    file = models.FileField(upload_to="datasets/", blank=True)
    path = models.CharField(max_length=500, blank=True, help_text="location in the data cache")
    url = models.URLField(max_length=1000, blank=True)
    expected_sha256 = models.CharField(max_length=64, blank=True)
    params = models.JSONField(default=dict, blank=True)
    size_bytes = models.PositiveBigIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "version"], name="dataset_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name}@v{self.version}"


class ModelEntry(OwnedModel):
    """A registered model: an OpenAI-compatible endpoint, a local HF directory, or a project model."""

    class Kind(models.TextChoices):
        OPENAI = "openai", "OpenAI-compatible endpoint"
        HF_LOCAL = "hf_local", "Local Hugging Face directory"
        PROJECT = "project", "Model trained by the project"

    name = models.SlugField(max_length=120, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    base_url = models.URLField(max_length=500, blank=True)
    model_id = models.CharField(max_length=200, blank=True)
    path = models.CharField(max_length=500, blank=True)
    api_key_env = models.CharField(
        max_length=100, blank=True, help_text="environment variable holding the key"
    )
    api_key_encrypted = models.BinaryField(blank=True, null=True, editable=False)
    options = models.JSONField(default=dict, blank=True)
    description = models.TextField(blank=True)

    class Meta:
        verbose_name = "model"

    def __str__(self) -> str:
        return self.name

    @property
    def has_stored_key(self) -> bool:
        return bool(self.api_key_encrypted)
