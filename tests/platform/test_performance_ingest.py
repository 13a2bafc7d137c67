"""Batched metric ingestion (DjangoRunContext.flush -> apps.runs.context.points_insert): every
point stored once with its value, non-finite values as null, awkward keys intact, and a flush
costs a bounded number of queries however many points it carries. On SQLite this exercises the
bulk_create path; the `services` run (PostgreSQL) exercises COPY."""

from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def running_run(user, synced):
    from apps.runs.models import Run
    from apps.runs.services import run_submit

    run = run_submit(user=user, benchmark="probe", method="probe_fast")
    Run.objects.filter(pk=run.pk).update(status="running")  # as a worker's claim leaves it
    run.refresh_from_db()
    return run


def check_points_stored(run, django_assert_max_num_queries) -> None:
    from apps.runs.context import DjangoRunContext
    from apps.runs.models import MetricPoint, RunEvent

    ctx = DjangoRunContext(run, device="cpu", data_dir="/tmp")
    odd_key = "tab\there back\\slash new\nline"
    ctx._last_flush = float("inf")  # no time-based flush, and < FLUSH_POINTS: one flush carries all
    for step in range(2000):
        ctx.log_metrics(step, a=step * 0.5, b=-step)
    ctx.log_metrics(2000, **{odd_key: 1.25, "nan": float("nan"), "inf": float("inf")})
    from django.db import connection

    # PostgreSQL: one COPY whatever the size, plus the run update and the event. SQLite: the
    # inserts are split by its bound-parameter limit (999 per statement, 4 per row).
    budget = 10 if connection.vendor == "postgresql" else 10 + math.ceil((2 * 2000 + 3) * 4 / 999)
    with django_assert_max_num_queries(budget):
        ctx.flush()
    stored = {(p.key, p.step): p.value for p in MetricPoint.objects.filter(run=run)}
    assert len(stored) == 2 * 2000 + 3
    assert all(stored[("a", s)] == s * 0.5 and stored[("b", s)] == -s for s in range(2000))
    assert stored[(odd_key, 2000)] == 1.25
    assert stored[("nan", 2000)] is None and stored[("inf", 2000)] is None
    events = list(RunEvent.objects.filter(run=run, kind="metrics"))
    assert len(events) == 1 and len(events[0].data["points"]) == 2001
    assert not any(
        isinstance(v, float) and math.isnan(v)
        for _, vals in events[0].data["points"]
        for v in vals.values()
    )


def test_flush_stores_every_point_once(running_run, django_assert_max_num_queries):
    check_points_stored(running_run, django_assert_max_num_queries)


@pytest.mark.services
def test_flush_stores_every_point_once_postgresql(running_run, django_assert_max_num_queries):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the COPY path needs PostgreSQL (make test-services)")
    check_points_stored(running_run, django_assert_max_num_queries)
