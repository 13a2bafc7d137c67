"""Submitting, executing, cancelling and retrying runs through the REST API (embedded profile)."""

from __future__ import annotations

import pytest

from apps.runs.events import EVENT_SCHEMAS
from apps.runs.models import MetricPoint, Run, RunEvent

pytestmark = pytest.mark.django_db(transaction=False)


def submit(api, eager, **body):
    payload = {"benchmark": "probe", "method": "probe_fast", **body}
    with eager(execute=True):
        response = api.post("/api/runs/", payload, format="json")
    return response


def test_submit_executes_and_records_everything(api, eager):
    response = submit(api, eager, benchmark_config={"steps": 12, "artifact": True}, seed=3)
    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    assert run.status == "succeeded", run.error
    assert run.summary["loss"] == pytest.approx(1 / 13 + 0.03)
    assert run.progress_percent == 100.0
    assert run.seed == 3 and run.attempt == 1
    assert run.code_version and "torch" in run.package_versions and run.device == "cpu"
    assert run.benchmark_config == {
        "steps": 12,
        "sleep": 0.0,
        "fail_at": -1,
        "artifact": True,
        "hidden_truth": False,
        "nan_metric": False,
    }, "defaults are filled in and stored"
    assert MetricPoint.objects.filter(run=run, key="loss").count() == 12
    assert run.artifacts.get().name == "curve.json"

    events = list(RunEvent.objects.filter(run=run).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), "seqs are consecutive from 1"
    assert [e.data["status"] for e in events if e.kind == "status"] == [
        "queued",
        "running",
        "succeeded",
    ]
    for event in events:
        assert EVENT_SCHEMAS[event.kind] <= event.data.keys()


def test_metrics_logs_events_and_artifacts_endpoints(api, eager):
    run_id = submit(api, eager, benchmark_config={"steps": 10, "artifact": True}).json()["id"]
    metrics = api.get(f"/api/runs/{run_id}/metrics/").json()
    assert metrics["loss"]["steps"] == list(range(1, 11))
    logs = api.get(f"/api/runs/{run_id}/logs/").json()
    assert any("step 10" in line for entry in logs for line in entry["lines"])
    events = api.get(f"/api/runs/{run_id}/events/?after=2").json()
    assert events[0]["seq"] == 3
    art = api.get(f"/api/runs/{run_id}/artifacts/curve.json/")
    assert art.status_code == 200 and b'"data"' in b"".join(art.streaming_content)
    assert api.get(f"/api/runs/{run_id}/artifacts/nope.json/").status_code == 404
    assert api.get(f"/api/runs/{run_id}/events/?after=x").status_code == 400


def test_failure_is_recorded_with_traceback(api, eager):
    run_id = submit(api, eager, benchmark_config={"steps": 10, "fail_at": 4}).json()["id"]
    run = Run.objects.get(pk=run_id)
    assert run.status == "failed"
    assert "probe failure at step 4" in run.error
    assert "Traceback" in run.traceback and "probe_plugin.py" in run.traceback
    assert MetricPoint.objects.filter(run=run).count() == 3, "points before the failure are kept"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"benchmark": "nope"}, "benchmark"),
        ({"method": "maxucb"}, "method"),
        ({"benchmark_config": {"steps": 0}}, "benchmark_config.steps"),
        ({"benchmark_config": {"stepz": 3}}, "benchmark_config.stepz"),
        ({"benchmark_config": {"steps": "many"}}, "benchmark_config.steps"),
        ({"benchmark_config": [1, 2]}, "benchmark_config"),
        ({"method_config": {"rate": -1}}, "method_config.rate"),
        ({"seed": -5}, "seed"),
        ({"seed": 10**20}, "seed"),
        ({"pool": "nowhere"}, "pool"),
    ],
)
def test_bad_submissions_name_the_field(api, eager, body, field):
    before = Run.objects.count()
    response = submit(api, eager, **body)
    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()
    assert Run.objects.count() == before


def test_sweep_expands_grid_times_seeds(api, eager):
    with eager(execute=True):
        response = api.post(
            "/api/sweeps/",
            {
                "benchmark": "probe",
                "method": "probe_fast",
                "seeds": [0, 1, 2],
                "grid": {"method.rate": [1.0, 2.0]},
                "benchmark_config": {"steps": 3},
            },
            format="json",
        )
    assert response.status_code == 201, response.json()
    runs = Run.objects.filter(sweep_id=response.json()["id"])
    assert runs.count() == 6
    assert {(r.method_config["rate"], r.seed) for r in runs} == {
        (a, s) for a in (1.0, 2.0) for s in (0, 1, 2)
    }
    assert all(r.status == "succeeded" for r in runs)
    assert len({r.config_hash for r in runs}) == 2, "seeds share a config hash; grid points do not"


def test_bad_grid_point_creates_nothing(api, eager):
    response = api.post(
        "/api/sweeps/",
        {
            "benchmark": "probe",
            "method": "probe_fast",
            "seeds": [0],
            "grid": {"method.rate": [1.0, -3.0]},
        },
        format="json",
    )
    assert response.status_code == 400
    assert Run.objects.count() == 0


def test_cancel_queued_run_and_retry(api, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    from apps.pools.models import WorkerPool

    WorkerPool.objects.filter(name="default").update(paused=True)  # keep it queued
    run_id = api.post(
        "/api/runs/", {"benchmark": "probe", "method": "probe_fast"}, format="json"
    ).json()["id"]
    assert Run.objects.get(pk=run_id).status == "queued"
    response = api.post(f"/api/runs/{run_id}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert api.post(f"/api/runs/{run_id}/cancel/").status_code == 400
    retry = api.post(f"/api/runs/{run_id}/retry/")
    assert retry.status_code == 201 and retry.json()["retry_of"] == run_id


def test_running_run_stops_when_cancelled(user, synced):
    """Cooperative cancellation: check_cancelled() raises once cancel_requested is set."""
    from apps.runs.execution import run_execute
    from apps.runs.services import run_submit

    run = run_submit(
        user=user, benchmark="probe", method="probe_fast", benchmark_config={"steps": 5}
    )
    Run.objects.filter(pk=run.pk).update(cancel_requested=True)
    # The claim refuses a run whose cancellation was requested while it was queued.
    assert run_execute(run_id=run.pk, attempt=1, worker_name="w") == "skipped"


def test_runs_list_is_filterable_and_paginated(api, eager):
    for seed in range(3):
        submit(api, eager, seed=seed, benchmark_config={"steps": 2})
    body = api.get("/api/runs/?benchmark=probe&status=succeeded&page_size=2").json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]
    assert api.get("/api/runs/?sweep=abc").status_code == 400


def test_non_finite_values_and_empty_method_config(api, eager):
    response = submit(
        api, eager, method="probe_plain", benchmark_config={"steps": 3, "nan_metric": True}
    )
    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    assert run.status == "succeeded", run.error
    assert run.method_config == {} and run.summary["odd"] is None
    assert MetricPoint.objects.filter(run=run, key="odd", value__isnull=True).count() == 3
    points = [p for e in RunEvent.objects.filter(run=run, kind="metrics") for p in e.data["points"]]
    assert all(p[1]["odd"] is None and p[1]["huge"] is None for p in points)


def test_artifact_names_with_folders_and_no_escape(api, user, settings, tmp_path):
    from apps.pools.models import WorkerPool
    from apps.runs.context import DjangoRunContext
    from apps.runs.services import run_submit

    settings.MEDIA_ROOT = tmp_path
    WorkerPool.objects.filter(name="default").update(paused=True)
    run = run_submit(user=api.user, benchmark="probe", method="probe_fast")
    ctx = DjangoRunContext(run, device="cpu", data_dir=tmp_path)
    ctx.save_artifact("verilog/mul8.v", b"module mul8; endmodule")
    for bad in ("../escape.txt", "/abs.txt", "a//b", "sp ace.txt"):
        with pytest.raises(ValueError, match="artifact name"):
            ctx.save_artifact(bad, b"x")
    response = api.get(f"/api/runs/{run.pk}/artifacts/verilog/mul8.v/")
    assert (
        response.status_code == 200
        and b"".join(response.streaming_content) == b"module mul8; endmodule"
    )
    assert [a["name"] for a in api.get(f"/api/runs/{run.pk}/artifacts/").json()] == [
        "verilog/mul8.v"
    ]


def test_metrics_csv_export_is_streamed_and_equals_the_series(api, eager, user):
    from apps.runs.selectors import run_metric_csv_lines

    run_id = submit(api, eager, benchmark_config={"steps": 10, "nan_metric": True}).json()["id"]
    series = api.get(f"/api/runs/{run_id}/metrics/").json()
    response = api.get(f"/api/runs/{run_id}/metrics/?export=csv")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Disposition"] == f'attachment; filename="run-{run_id}-metrics.csv"'
    text = b"".join(response.streaming_content).decode()
    lines = text.strip().split("\n")
    assert lines[0] == "key,step,value" and len(lines) == 1 + sum(
        len(s["steps"]) for s in series.values()
    )
    loss = [line.split(",") for line in lines[1:] if line.startswith("loss,")]
    assert [int(step) for _, step, _ in loss] == series["loss"]["steps"]
    assert [float(v) for _, _, v in loss] == series["loss"]["values"]  # repr: exact floats
    # chunked the same: three rows per chunk gives the same text in more pieces
    run = Run.objects.get(pk=run_id)
    pieces = list(run_metric_csv_lines(run, chunk=3))
    assert len(pieces) > 3 and "".join(pieces) == text
    only = b"".join(api.get(f"/api/runs/{run_id}/metrics/?export=csv&keys=loss").streaming_content)
    assert only.decode().strip().split("\n")[1:] == [",".join(row) for row in loss]
    bad = api.get(f"/api/runs/{run_id}/metrics/?export=xlsx")
    assert bad.status_code == 400 and "export" in bad.json()["errors"]


@pytest.mark.django_db(transaction=True)
def test_metrics_csv_export_streams_under_asgi(api, eager, user):
    """Under ASGI the export is an async iterator pulled chunk by chunk (not buffered whole)."""
    import asyncio

    from django.test import AsyncClient

    from apps.accounts.services import api_token_create

    run_id = submit(api, eager, benchmark_config={"steps": 5}).json()["id"]
    _, raw = api_token_create(user=user, scopes=["read"])
    client = AsyncClient()

    async def fetch():
        response = await client.get(
            f"/api/runs/{run_id}/metrics/?export=csv", headers={"authorization": f"Bearer {raw}"}
        )
        assert response.status_code == 200, response.content
        assert response.is_async  # served from an async iterator, not a consumed list
        return b"".join([chunk async for chunk in response.streaming_content]).decode()

    text = asyncio.run(fetch())
    assert text.startswith("key,step,value\n") and "\nloss,5," in text
