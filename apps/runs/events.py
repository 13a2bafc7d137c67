"""The event store: every change is stored first (with an increasing per-run seq), then announced.

Announcing is only a wake-up: consumers always read from the store, so a late or
reconnecting page gets the backlog and then live events with nothing missed or doubled.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from apps.runs.models import Run, RunEvent

EVENT_SCHEMAS: dict[str, set[str]] = {
    # kind -> keys every event of that kind carries (checked by tests against real events)
    "status": {"status", "reason"},
    "progress": {"done", "total", "note"},
    "metrics": {"points"},
    "log": {"lines"},
    "summary": {"values"},
    "artifact": {"name", "content_type", "size"},
}


def run_group(run_id: int) -> str:
    return f"run.{run_id}"


def benchmark_group(name: str) -> str:
    return f"bench.{name}"


def events_append(*, run_id: int, events: list[tuple[str, dict[str, Any]]]) -> int:
    """Store `events` for a run atomically with consecutive seqs; announce after commit.

    Returns the last seq. Allocating seqs with an UPDATE ... SET event_seq = event_seq + n
    row-locks the run, so concurrent writers (worker, watchdog, web) never collide.
    """
    if not events:
        return 0
    for kind, data in events:
        missing = EVENT_SCHEMAS[kind] - data.keys()
        if missing:
            raise ValueError(f"{kind} event is missing {sorted(missing)}")
    with transaction.atomic():
        last = _seq_advance(run_id, len(events))
        first = last - len(events) + 1
        RunEvent.objects.bulk_create(
            [
                RunEvent(run_id=run_id, seq=first + i, kind=kind, data=data)
                for i, (kind, data) in enumerate(events)
            ]
        )
        transaction.on_commit(
            lambda: announce(run_group(run_id), {"type": "run.wake", "seq": last})
        )
    return last


def _seq_advance(run_id: int, n: int) -> int:
    """Reserve n seqs: one UPDATE ... RETURNING (PostgreSQL, SQLite >= 3.35) instead of an
    UPDATE and a SELECT per event batch."""
    table = connection.ops.quote_name(Run._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET event_seq = event_seq + %s WHERE id = %s RETURNING event_seq",
            [n, run_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Run.DoesNotExist(f"run {run_id} does not exist")
    return row[0]


def event_append(*, run_id: int, kind: str, data: dict[str, Any]) -> int:
    return events_append(run_id=run_id, events=[(kind, data)])


class _Announcer:
    """One event loop per process, in a daemon thread, for every wake-up: the channel layer
    keeps a Redis connection per event loop, and async_to_sync ran each group_send on a new
    loop, so each wake-up opened a connection (3.1 ms against 0.36 ms on a kept one:
    bench/announce_cost.py). A forked child (Celery prefork) starts its own loop, since the
    parent's thread does not survive the fork."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="crucible-announce", daemon=True
                ).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop

    def send(self, layer, group: str, message: dict[str, Any], timeout: float = 5.0) -> None:
        future = asyncio.run_coroutine_threadsafe(
            layer.group_send(group, message), self._running_loop()
        )
        future.result(timeout)


_announcer = _Announcer()


def announce(group: str, message: dict[str, Any]) -> None:
    """Wake consumers through the channel layer. Only meaningful with channels-redis: the
    in-memory layer cannot reach other processes, so there consumers poll the store instead."""
    if not settings.SERVICES_PROFILE:
        return
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return
    try:
        _announcer.send(layer, group, message)
    except Exception:  # noqa: BLE001 - the store is the truth; a lost wake-up only delays the poll
        import logging

        logging.getLogger(__name__).warning("could not announce to %s", group, exc_info=True)


def events_after(*, run_id: int, after: int, limit: int = 5000) -> list[dict[str, Any]]:
    rows = (
        RunEvent.objects.filter(run_id=run_id, seq__gt=after)
        .order_by("seq")
        .values("seq", "kind", "data", "created_at")[:limit]
    )
    return [
        {"seq": r["seq"], "kind": r["kind"], "data": r["data"], "ts": r["created_at"].isoformat()}
        for r in rows
    ]
