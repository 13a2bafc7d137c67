from django.contrib import admin, messages

from apps.pools import services
from apps.pools.models import Worker, WorkerPool


class WorkerInline(admin.TabularInline):
    model = Worker
    extra = 0
    readonly_fields = (
        "hostname",
        "pid",
        "devices",
        "concurrency",
        "started_at",
        "last_heartbeat",
        "stopped_at",
    )
    can_delete = False


@admin.register(WorkerPool)
class WorkerPoolAdmin(admin.ModelAdmin):
    list_display = ("name", "paused", "draining", "queued_runs", "running_runs")
    inlines = [WorkerInline]
    actions = ["pause", "resume", "drain"]

    @admin.display(description="queued")
    def queued_runs(self, obj):
        return obj.runs.filter(status="queued").count()

    @admin.display(description="running")
    def running_runs(self, obj):
        return obj.runs.filter(status="running").count()

    @admin.action(description="Pause: no new runs start")
    def pause(self, request, queryset):
        for pool in queryset:
            services.pool_pause(pool=pool)
        messages.success(request, f"paused {queryset.count()} pool(s)")

    @admin.action(description="Resume: dispatch waiting runs")
    def resume(self, request, queryset):
        for pool in queryset:
            services.pool_resume(pool=pool)
        messages.success(request, f"resumed {queryset.count()} pool(s)")

    @admin.action(description="Drain: finish current runs, then stop workers")
    def drain(self, request, queryset):
        for pool in queryset:
            services.pool_drain(pool=pool)
        messages.success(request, f"draining {queryset.count()} pool(s)")


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ("hostname", "pool", "concurrency", "last_heartbeat", "stopped_at")
    list_filter = ("pool",)
    readonly_fields = ("devices",)
