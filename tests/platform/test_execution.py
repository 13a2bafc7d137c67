"""At-most-once execution, the watchdog, and cancellation of a running run."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.runs.execution import run_execute
from apps.runs.models import MetricPoint, Run
from apps.runs.services import run_submit
from apps.runs.watchdog import runs_reap_lost

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued_run(user, synced, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    from apps.pools.models import WorkerPool

    WorkerPool.objects.filter(name="default").update(paused=True)  # no broker in these tests
    run = run_submit(
        user=user, benchmark="probe", method="probe_fast", benchmark_config={"steps": 4}
    )
    WorkerPool.objects.filter(name="default").update(paused=False)
    return run


def test_duplicate_delivery_executes_once(queued_run):
    assert run_execute(run_id=queued_run.pk, attempt=1, worker_name="w1") == "succeeded"
    assert run_execute(run_id=queued_run.pk, attempt=1, worker_name="w2") == "skipped"
    assert MetricPoint.objects.filter(run=queued_run).count() == 4
    assert Run.objects.get(pk=queued_run.pk).worker_name == "w1"


def test_stale_attempt_is_not_executed(queued_run):
    assert run_execute(run_id=queued_run.pk, attempt=2, worker_name="w1") == "skipped"
    assert Run.objects.get(pk=queued_run.pk).status == "queued"


def _make_running(run, seconds_ago: float):
    Run.objects.filter(pk=run.pk).update(
        status="running",
        worker_name="gpu@host-1",
        heartbeat_at=timezone.now() - timedelta(seconds=seconds_ago),
    )


def test_watchdog_requeues_run_of_silent_worker(queued_run, settings):
    settings.CRUCIBLE_HEARTBEAT_TIMEOUT = 30
    _make_running(queued_run, 5)
    assert runs_reap_lost() == []  # still beating
    _make_running(queued_run, 60)
    assert runs_reap_lost() == [queued_run.pk]
    run = Run.objects.get(pk=queued_run.pk)
    assert run.status == "queued" and run.attempt == 2
    assert run.status_reason.startswith("worker lost at ") and "gpu@host-1" in run.status_reason
    # The old attempt's late message does nothing; the new attempt completes once.
    assert run_execute(run_id=run.pk, attempt=1, worker_name="w") == "skipped"
    assert run_execute(run_id=run.pk, attempt=2, worker_name="w") == "succeeded"


def test_watchdog_fails_after_max_attempts(queued_run, settings):
    settings.CRUCIBLE_MAX_ATTEMPTS = 1
    _make_running(queued_run, 600)
    runs_reap_lost()
    run = Run.objects.get(pk=queued_run.pk)
    assert run.status == "failed" and run.failed_by_platform
    assert "worker lost at" in run.status_reason


def test_cancel_reaches_running_run(queued_run, monkeypatch):
    """The probe checks for cancellation every step; cancel after the first step."""
    from apps.runs import context as context_module
    from apps.runs.services import run_cancel

    monkeypatch.setattr(context_module, "CANCEL_CHECK_SECONDS", 0.0)
    Run.objects.filter(pk=queued_run.pk).update(
        benchmark_config={**queued_run.benchmark_config, "steps": 50}
    )
    original = context_module.DjangoRunContext.log_metrics

    def log_and_cancel(self, step, **values):
        original(self, step, **values)
        if step == 2:
            run_cancel(run=Run.objects.get(pk=self.run_id))

    monkeypatch.setattr(context_module.DjangoRunContext, "log_metrics", log_and_cancel)
    assert run_execute(run_id=queued_run.pk, attempt=1, worker_name="w") == "cancelled"
    run = Run.objects.get(pk=queued_run.pk)
    assert run.status == "cancelled" and run.finished_at is not None
    assert MetricPoint.objects.filter(run=run).count() == 2


def test_requeued_attempt_fences_the_old_execution_and_redraws_its_curves(queued_run, monkeypatch):
    """The watchdog requeues a run whose worker only looked silent: the old execution's next
    write is refused (it stops), and the new attempt's curve is stored once, not doubled."""
    from apps.runs import context as context_module
    from apps.runs.events import events_after

    monkeypatch.setattr(context_module, "FLUSH_SECONDS", 0.0)  # every point is its own write
    original = context_module.DjangoRunContext.log_metrics

    def requeue_at_step_2(self, step, **values):
        original(self, step, **values)
        if step == 2 and self.attempt == 1:
            _make_running(Run.objects.get(pk=self.run_id), 600)
            assert runs_reap_lost() == [self.run_id]

    monkeypatch.setattr(context_module.DjangoRunContext, "log_metrics", requeue_at_step_2)
    assert run_execute(run_id=queued_run.pk, attempt=1, worker_name="old") == "superseded"
    assert (
        MetricPoint.objects.filter(run=queued_run).count() == 2
    )  # attempt 1 stopped at its next write
    assert run_execute(run_id=queued_run.pk, attempt=2, worker_name="new") == "succeeded"
    steps = list(
        MetricPoint.objects.filter(run=queued_run).order_by("step").values_list("step", flat=True)
    )
    assert steps == [1, 2, 3, 4]
    running = [
        e["data"]
        for e in events_after(run_id=queued_run.pk, after=0, limit=1000)
        if e["kind"] == "status" and e["data"]["status"] == "running"
    ]
    assert [d["attempt"] for d in running] == [1, 2]  # the page resets its curves on attempt 2


def test_watchdog_waits_a_heartbeat_timeout_after_its_own_database_outage(
    queued_run, settings, monkeypatch
):
    """After the database was away, every heartbeat looks stale: the watchdog must give live
    workers a full timeout to beat again before it calls them lost."""
    from apps.runs import watchdog

    settings.CRUCIBLE_HEARTBEAT_TIMEOUT = 30
    clock = [1000.0]
    monkeypatch.setattr(watchdog.time, "monotonic", lambda: clock[0])
    _make_running(queued_run, 600)
    watchdog.database_contact_lost()
    assert watchdog.watchdog_sweep()["requeued_or_failed"] == []
    clock[0] += 29
    assert watchdog.watchdog_sweep()["requeued_or_failed"] == []
    assert Run.objects.get(pk=queued_run.pk).status == "running"
    clock[0] += 2
    assert watchdog.watchdog_sweep()["requeued_or_failed"] == [queued_run.pk]
    # A one-off sweep (crucible_watchdog --once) trusts the heartbeats at once.
    _make_running(Run.objects.get(pk=queued_run.pk), 600)
    Run.objects.filter(pk=queued_run.pk).update(attempt=1)
    watchdog.database_contact_lost()
    assert watchdog.watchdog_sweep(grace=False)["requeued_or_failed"] == [queued_run.pk]
