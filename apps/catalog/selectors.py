from __future__ import annotations

from django.db.models import QuerySet

from apps.catalog.models import Benchmark, Dataset, Method, ModelEntry
from apps.runs.selectors import visible_q


def benchmarks_active() -> QuerySet[Benchmark]:
    return Benchmark.objects.filter(active=True).select_related("paper").prefetch_related("methods")


def methods_active() -> QuerySet[Method]:
    return Method.objects.filter(active=True).select_related("paper").prefetch_related("benchmarks")


def datasets_visible(user) -> QuerySet[Dataset]:
    return (
        Dataset.objects.filter(visible_q(user))
        .select_related("benchmark")
        .prefetch_related("versions__dataset")
    )


def models_visible(user) -> QuerySet[ModelEntry]:
    return ModelEntry.objects.filter(visible_q(user))
