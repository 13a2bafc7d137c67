from django.contrib import admin

from apps.catalog.models import Benchmark, Dataset, DatasetVersion, Method, ModelEntry, Paper


@admin.register(Paper)
class PaperAdmin(admin.ModelAdmin):
    list_display = ("key", "title", "venue", "year")


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ("name", "title", "active")


@admin.register(Method)
class MethodAdmin(admin.ModelAdmin):
    list_display = ("name", "title", "is_baseline", "requires_model", "active")


class DatasetVersionInline(admin.TabularInline):
    model = DatasetVersion
    extra = 0


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ("name", "benchmark", "visibility", "created_at")
    inlines = [DatasetVersionInline]


@admin.register(ModelEntry)
class ModelEntryAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "base_url", "model_id", "path", "api_key_env")
    exclude = ("api_key_encrypted",)
