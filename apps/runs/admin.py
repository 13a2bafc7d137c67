from django.contrib import admin

from apps.runs.models import Artifact, Run, Sweep


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "benchmark",
        "method",
        "seed",
        "status",
        "attempt",
        "worker_name",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", "benchmark", "method", "pool")
    search_fields = ("id", "name", "worker_name")
    readonly_fields = [f.name for f in Run._meta.fields]
    list_select_related = ("benchmark", "method")


@admin.register(Sweep)
class SweepAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "benchmark", "method", "created_at")


@admin.register(Artifact)
class ArtifactAdmin(admin.ModelAdmin):
    list_display = ("run", "name", "content_type", "size_bytes")
