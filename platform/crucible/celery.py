"""The Celery app. Queues are per worker pool (`pool.<name>`); late acks, prefetch 1."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings")

app = Celery("crucible")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=False,  # the watchdog, not redelivery, decides about lost runs
    worker_prefetch_multiplier=1,
    task_default_queue="pool.default",
    task_create_missing_queues=True,
    task_serializer="json",
    accept_content=["json"],
    worker_hijack_root_logger=False,
    broker_connection_retry_on_startup=True,
    worker_send_task_events=False,
)
app.autodiscover_tasks(["workers"], related_name="tasks")
