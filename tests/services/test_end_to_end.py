"""Services profile end to end: API submit -> Redis -> Celery worker process -> PostgreSQL ->
channels-redis -> websocket, and a worker killed mid-run."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import requests
import websockets
from django.test import Client

from apps.runs.models import Run, RunEvent

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def api_session(user) -> requests.Session:
    from apps.accounts.services import api_token_create

    _, raw = api_token_create(user=user)
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {raw}"
    return s


def session_cookie(user) -> str:
    c = Client()
    c.force_login(user)
    return c.cookies["sessionid"].value


async def collect_events(
    url: str,
    run_id: int,
    cookie: str,
    after: int = 0,
    until_terminal: bool = True,
    limit_s: float = 120,
) -> list[dict]:
    ws_url = url.replace("http", "ws") + f"/ws/runs/{run_id}/?after={after}"
    events = []
    async with websockets.connect(
        ws_url, additional_headers={"Cookie": f"sessionid={cookie}", "Origin": url}
    ) as ws:
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            event = json.loads(
                await asyncio.wait_for(ws.recv(), timeout=deadline - time.monotonic())
            )
            events.append(event)
            if (
                until_terminal
                and event["kind"] == "status"
                and event["data"]["status"] in ("succeeded", "failed", "cancelled")
            ):
                return events
    raise AssertionError(f"no terminal status within {limit_s}s: {events[-3:]}")


def test_maxucb_run_through_api_worker_and_websocket(user, synced, start_worker, web_server):
    worker = start_worker()
    http = api_session(user)
    response = http.post(
        f"{web_server.url}/api/runs/",
        json={
            "benchmark": "cash",
            "method": "maxucb",
            "seed": 7,
            "benchmark_config": {"arms": "synthetic", "horizon": 60},
        },
        timeout=30,
    )
    assert response.status_code == 201, response.text
    run_id = response.json()["id"]
    events = asyncio.run(collect_events(web_server.url, run_id, session_cookie(user)))
    run = Run.objects.get(pk=run_id)
    assert run.status == "succeeded", (run.error, worker.tail())
    assert run.worker_name == worker.hostname and "regret" in run.summary
    # The websocket delivered every stored event exactly once, in order.
    stored = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))
    assert [e["seq"] for e in events] == stored == list(range(1, len(stored) + 1))
    kinds = {e["kind"] for e in events}
    assert {"status", "progress", "metrics", "summary"} <= kinds
    last_progress = [e for e in events if e["kind"] == "progress"][-1]["data"]
    assert last_progress["done"] == last_progress["total"]
    board = http.get(f"{web_server.url}/api/leaderboards/cash/", timeout=30).json()
    assert [r["method"] for r in board["rows"]] == ["maxucb"]


def test_websocket_reconnect_mid_run_gets_every_event_once(user, synced, start_worker, web_server):
    start_worker()
    http = api_session(user)
    run_id = http.post(
        f"{web_server.url}/api/runs/",
        json={
            "benchmark": "probe",
            "method": "probe_plain",
            "benchmark_config": {"steps": 40, "sleep": 0.05, "nan_metric": True},
        },
        timeout=30,
    ).json()["id"]
    cookie = session_cookie(user)

    async def scenario():
        first = []
        ws_url = web_server.url.replace("http", "ws") + f"/ws/runs/{run_id}/?after=0"
        async with websockets.connect(
            ws_url, additional_headers={"Cookie": f"sessionid={cookie}", "Origin": web_server.url}
        ) as ws:
            while len(first) < 6:
                first.append(json.loads(await asyncio.wait_for(ws.recv(), timeout=60)))
        rest = await collect_events(web_server.url, run_id, cookie, after=first[-1]["seq"])
        return first + rest

    events = asyncio.run(scenario())
    stored = list(
        RunEvent.objects.filter(run_id=run_id).order_by("seq").values_list("seq", flat=True)
    )
    assert [e["seq"] for e in events] == stored
    steps = [p[0] for e in events if e["kind"] == "metrics" for p in e["data"]["points"]]
    assert steps == list(range(1, 41)), "every metric point arrives once"
    run = Run.objects.get(pk=run_id)
    assert run.status == "succeeded" and run.summary["odd"] is None, (
        "NaN is stored as null in PostgreSQL jsonb"
    )


def test_worker_killed_mid_run_is_requeued_and_completes_once(user, synced, start_worker):
    from apps.runs.services import run_submit

    victim = start_worker(name="victim")
    run = run_submit(
        user=user,
        benchmark="probe",
        method="probe_fast",
        benchmark_config={"steps": 60, "sleep": 0.1},
    )
    deadline = time.monotonic() + 60
    while Run.objects.get(pk=run.pk).status != "running":
        assert time.monotonic() < deadline, victim.tail()
        time.sleep(0.1)
    time.sleep(1.0)
    victim.kill()  # SIGKILL the worker and its pool child: no chance to clean up
    rescuer = start_worker(name="rescuer")
    deadline = time.monotonic() + 120
    while Run.objects.get(pk=run.pk).status not in ("succeeded", "failed"):
        assert time.monotonic() < deadline, rescuer.tail()
        time.sleep(0.3)
    run.refresh_from_db()
    assert run.status == "succeeded" and run.attempt == 2 and run.worker_name == "rescuer@test", (
        rescuer.tail()
    )
    reasons = [
        e.data["reason"] for e in RunEvent.objects.filter(run=run, kind="status").order_by("seq")
    ]
    assert any(r.startswith("worker lost at") and "victim@test" in r for r in reasons), reasons
    # Attempt 2 started from scratch: every step of it is stored exactly once after the requeue.
    running_events = [
        e.seq for e in RunEvent.objects.filter(run=run, kind="status", data__status="running")
    ]
    assert len(running_events) == 2
