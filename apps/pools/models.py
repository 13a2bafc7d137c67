"""Worker pools (one Celery queue each) and the workers that serve them."""

from __future__ import annotations

from django.db import models


class WorkerPool(models.Model):
    name = models.SlugField(max_length=64, unique=True)
    description = models.TextField(blank=True)
    # paused: no run starts (queued runs wait, nothing is lost); draining: paused, and its
    # workers shut down once their current runs finish.
    paused = models.BooleanField(default=False)
    draining = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def queue(self) -> str:
        return f"pool.{self.name}"

    @property
    def accepting(self) -> bool:
        return not (self.paused or self.draining)


class Worker(models.Model):
    hostname = models.CharField(max_length=255, unique=True, help_text="Celery node name")
    pool = models.ForeignKey(WorkerPool, on_delete=models.CASCADE, related_name="workers")
    pid = models.PositiveIntegerField(default=0)
    devices = models.JSONField(default=list)
    concurrency = models.PositiveIntegerField(default=1)
    started_at = models.DateTimeField(auto_now_add=True)
    last_heartbeat = models.DateTimeField(null=True, db_index=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pool", "hostname"]

    def __str__(self) -> str:
        return self.hostname
