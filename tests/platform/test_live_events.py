"""Websocket consumers: backlog then live, each event exactly once, across reconnects."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from crucible.asgi import application

from apps.runs.events import event_append
from apps.runs.models import Run
from apps.runs.services import run_submit

pytestmark = pytest.mark.django_db(transaction=True)


async def _connect(path: str, user):
    from channels.auth import AuthMiddlewareStack  # noqa: F401 - scope user injected below

    communicator = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://127.0.0.1")]
    )
    communicator.scope["user"] = user
    connected, code = await communicator.connect()
    return communicator, connected, code


async def _receive_all(communicator, timeout=1.5):
    """Everything the consumer sends until it stays quiet for `timeout` seconds.
    (receive_nothing, unlike a timed-out receive, does not cancel the application.)"""
    out = []
    while not await communicator.receive_nothing(timeout=timeout, interval=0.02):
        out.append(await communicator.receive_json_from(timeout=1))
    return out


@pytest.fixture
def run(user, synced, settings):
    settings.CRUCIBLE_EVENT_POLL_SECONDS = 0.05
    from apps.pools.models import WorkerPool

    WorkerPool.objects.filter(name="default").update(paused=True)
    return run_submit(user=user, benchmark="probe", method="probe_fast")


def test_backlog_then_live_then_reconnect(run, user):
    async def scenario():
        ws, connected, _ = await _connect(f"/ws/runs/{run.pk}/", user)
        assert connected
        backlog = await _receive_all(ws, timeout=0.5)
        assert [e["seq"] for e in backlog] == [1] and backlog[0]["data"]["status"] == "queued"
        for i in range(3):
            await database_sync_to_async(event_append)(
                run_id=run.pk, kind="log", data={"lines": [f"line {i}"]}
            )
        live = await _receive_all(ws, timeout=0.5)
        assert [e["seq"] for e in live] == [2, 3, 4]
        await ws.disconnect()
        # Events written while disconnected arrive after reconnecting from the last seq seen.
        for i in range(3, 5):
            await database_sync_to_async(event_append)(
                run_id=run.pk, kind="log", data={"lines": [f"line {i}"]}
            )
        ws2, connected, _ = await _connect(f"/ws/runs/{run.pk}/?after=4", user)
        assert connected
        again = await _receive_all(ws2, timeout=0.5)
        assert [e["seq"] for e in again] == [5, 6]
        assert [e["data"]["lines"][0] for e in again] == ["line 3", "line 4"]
        await ws2.disconnect()

    asyncio.run(scenario())


def test_private_run_refused_to_other_users(run, db):
    from django.contrib.auth.models import AnonymousUser

    from apps.accounts.services import user_create

    Run.objects.filter(pk=run.pk).update(visibility="team")
    mallory = user_create(username="mallory", password="mallory-password-1")

    async def scenario():
        for who in (mallory, AnonymousUser()):
            ws, connected, code = await _connect(f"/ws/runs/{run.pk}/", who)
            assert not connected and code == 4403

    asyncio.run(scenario())


def test_leaderboard_socket_announces_new_results(run, user, settings):
    from apps.pools.models import WorkerPool
    from apps.runs.execution import run_execute

    WorkerPool.objects.filter(name="default").update(paused=False)

    async def scenario():
        ws, connected, _ = await _connect("/ws/leaderboards/probe/", user)
        assert connected
        first = await ws.receive_json_from(timeout=1)
        assert first["type"] == "leaderboard.version"
        status = await database_sync_to_async(run_execute)(
            run_id=run.pk, attempt=1, worker_name="w"
        )
        assert status == "succeeded"
        changed = await ws.receive_json_from(timeout=2)
        assert changed["type"] == "leaderboard.changed" and changed["version"] > first["version"]
        await ws.disconnect()

    asyncio.run(scenario())
