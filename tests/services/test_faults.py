"""Service faults against the real services: Redis restarted with runs queued and running,
PostgreSQL restarted during a run. Nothing is lost, nothing runs twice."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import time

import pytest
from django.db import connection

from apps.runs.models import MetricPoint, Run, RunEvent

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def restart_redis() -> None:
    from scripts.services_up import start_redis  # the same start command CI uses

    subprocess.run(
        ["redis-cli", "-p", "6379", "shutdown", "nosave"], capture_output=True, timeout=30
    )
    start_redis()
    for _ in range(100):
        if (
            subprocess.run(
                ["redis-cli", "-p", "6379", "ping"], capture_output=True, text=True
            ).stdout.strip()
            == "PONG"
        ):
            return
        time.sleep(0.1)
    raise RuntimeError("redis did not come back")


def restart_postgres() -> None:
    version = os.path.basename(sorted(glob.glob("/etc/postgresql/*"))[-1])
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart", "-m", "fast"],
        check=True,
        timeout=120,
    )


def wait_all(ids, timeout=180):
    deadline = time.monotonic() + timeout
    while True:
        connection.close()
        try:
            states = dict(Run.objects.filter(pk__in=ids).values_list("pk", "status"))
        except Exception:  # noqa: BLE001 - the database may be restarting
            states = {}
        if states and all(s in ("succeeded", "failed", "cancelled") for s in states.values()):
            return states
        assert time.monotonic() < deadline, states
        time.sleep(0.5)


@pytest.mark.skipif(
    not (shutil.which("redis-server") and shutil.which("redis-cli")),
    reason="needs redis-server here",
)
def test_redis_restart_loses_no_queued_run_and_runs_none_twice(user, synced, start_worker):
    from apps.runs.services import run_submit

    worker = start_worker()
    ids = [
        run_submit(
            user=user,
            benchmark="probe",
            method="probe_fast",
            seed=i,
            benchmark_config={"steps": 15, "sleep": 0.1},
        ).pk
        for i in range(5)
    ]
    deadline = time.monotonic() + 60
    while not Run.objects.filter(pk__in=ids, status="running").exists():
        assert time.monotonic() < deadline, worker.tail()
        time.sleep(0.1)
    restart_redis()  # the queued messages are gone (no persistence), one run is mid-flight
    states = wait_all(ids)
    assert set(states.values()) == {"succeeded"}, (states, worker.tail())
    for run_id in ids:
        started = RunEvent.objects.filter(
            run_id=run_id, kind="status", data__status="running"
        ).count()
        assert started == 1, f"run {run_id} started {started} times"
        assert MetricPoint.objects.filter(run_id=run_id).count() == 15


@pytest.mark.skipif(not shutil.which("pg_ctlcluster"), reason="needs pg_ctlcluster here")
def test_postgres_restart_during_a_run_loses_no_metric(user, synced, start_worker):
    from apps.runs.services import run_submit

    worker = start_worker()
    run = run_submit(
        user=user,
        benchmark="probe",
        method="probe_fast",
        benchmark_config={"steps": 80, "sleep": 0.1},
    )
    deadline = time.monotonic() + 60
    while MetricPoint.objects.filter(run=run).count() < 10:
        assert time.monotonic() < deadline, worker.tail()
        time.sleep(0.1)
    connection.close()
    restart_postgres()
    states = wait_all([run.pk])
    assert states[run.pk] == "succeeded", worker.tail()
    steps = list(
        MetricPoint.objects.filter(run=run, key="loss")
        .order_by("step")
        .values_list("step", flat=True)
    )
    assert steps == list(range(1, 81)), "every point arrived, once, in order"
    seqs = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    streamed = [
        p[0]
        for e in RunEvent.objects.filter(run=run, kind="metrics").order_by("seq")
        for p in e.data["points"]
    ]
    assert streamed == list(range(1, 81))
