"""The database-backed RunContext used by workers.

Metric points and log lines are buffered and written in batches (one transaction, one event
per batch) so a run logging thousands of points a second does not issue a query per point.
"""

from __future__ import annotations

import re
import threading
import time
from math import isfinite
from pathlib import Path
from typing import Any

from django.core.files.base import ContentFile
from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from apps.runs.dbretry import with_db_retry
from apps.runs.events import event_append, events_append
from apps.runs.models import Artifact, MetricPoint, Run, RunEvent, RunStatus
from workers.core.context import RunCancelled, RunContext, artifact_bytes, clean_number


def finite_or_none(value: float) -> float | None:
    """JSON (and PostgreSQL's jsonb) has no NaN or infinity: store those as null."""
    return value if value == value and value not in (float("inf"), float("-inf")) else None


# Artifact names may have folders ("verilog/mul8.v") but never climb out of the run's folder.
ARTIFACT_NAME = re.compile(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*")

FLUSH_SECONDS = 0.25
FLUSH_POINTS = 5000
CANCEL_CHECK_SECONDS = 0.5


def points_insert(rows: list[tuple[int, str, int, float | None]]) -> None:
    """Insert (run_id, key, step, value) rows. On PostgreSQL through COPY: no model instances,
    no SQL text to build, one round trip per flush (bench/ingest_compare.py: the ORM's
    bulk_create spends most of its time building objects and SQL, COPY is the physical floor)."""
    if connection.vendor == "postgresql":
        table = MetricPoint._meta.db_table
        with (
            connection.cursor() as cursor,
            cursor.cursor.copy(f"COPY {table} (run_id, key, step, value) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
        return
    MetricPoint.objects.bulk_create(
        [MetricPoint(run_id=r, key=k, step=s, value=v) for r, k, s, v in rows], batch_size=2000
    )


class RunSuperseded(Exception):
    """This execution's attempt was requeued by the watchdog: a newer attempt owns the run."""


class DjangoRunContext(RunContext):
    def __init__(self, run: Run, *, device: str, data_dir: str | Path, model: Any = None) -> None:
        super().__init__(seed=run.seed, device=device, data_dir=data_dir, model=model)
        self.run_id = run.pk
        self.attempt = run.attempt
        self._points: list[tuple[int, dict[str, float]]] = []
        self._n_points = 0
        self._logs: list[str] = []
        self._pending_progress: tuple[float, float, str] | None = None
        self._last_flush = time.monotonic()
        self._last_cancel_check = 0.0
        self._lock = threading.Lock()
        self.datasets_used: dict[str, str] = {}
        self.dataset_sources: dict[str, str] = {}
        self.summary_values: dict[str, float] = {}

    # -- buffered writes -----------------------------------------------------------------
    def _maybe_flush(self) -> None:
        if self._n_points >= FLUSH_POINTS or time.monotonic() - self._last_flush >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            points, self._points, self._n_points = self._points, [], 0
            logs, self._logs = self._logs, []
            progress, self._pending_progress = self._pending_progress, None
            self._last_flush = time.monotonic()
        if not (points or logs or progress):
            return
        events: list[tuple[str, dict]] = []
        run_id = self.run_id
        # isfinite inline (not finite_or_none per value): this loop touches every point.
        clean_points = [
            (step, {k: v if isfinite(v) else None for k, v in values.items()})
            for step, values in points
        ]
        rows = [
            (run_id, key, step, value)
            for step, values in clean_points
            for key, value in values.items()
        ]
        if points:
            events.append(("metrics", {"points": [[s, v] for s, v in clean_points]}))
        if logs:
            events.append(("log", {"lines": logs}))
        update: dict[str, Any] = {"heartbeat_at": timezone.now()}
        if progress:
            done, total, note = progress
            events.append(("progress", {"done": done, "total": total, "note": note}))
            update.update(progress_done=done, progress_total=total, progress_note=note[:300])

        def write() -> None:
            with transaction.atomic():
                # Fenced by attempt: once the watchdog has requeued this run, the old execution's
                # writes are refused, so two executions can never interleave their points.
                current = Run.objects.filter(
                    pk=self.run_id, attempt=self.attempt, status=RunStatus.RUNNING
                )
                if not current.update(**update):
                    raise RunSuperseded(
                        f"run {self.run_id} attempt {self.attempt} is no longer the running attempt"
                    )
                if rows:
                    points_insert(rows)
                events_append(run_id=self.run_id, events=events)

        with_db_retry(write, what=f"run {self.run_id} flush")

    # -- RunContext ----------------------------------------------------------------------
    def progress(self, done: float, total: float, note: str = "") -> None:
        if total <= 0 or done < 0:
            raise ValueError(f"progress({done}, {total}) is out of range")
        with self._lock:
            self._pending_progress = (float(min(done, total)), float(total), str(note))
        self._maybe_flush()

    def log(self, message: str) -> None:
        with self._lock:
            self._logs.extend(str(message).splitlines() or [""])
        self._maybe_flush()

    def log_metrics(self, step: int, **values: float) -> None:
        clean = {k: clean_number(v) for k, v in values.items()}
        with self._lock:
            self._points.append((int(step), clean))
            self._n_points += len(clean)
        self._maybe_flush()

    def log_summary(self, **values: float) -> None:
        self.summary_values.update({k: clean_number(v) for k, v in values.items()})
        self.flush()
        values = {k: finite_or_none(v) for k, v in self.summary_values.items()}
        with_db_retry(
            lambda: event_append(run_id=self.run_id, kind="summary", data={"values": values}),
            what=f"run {self.run_id} summary",
        )

    def save_artifact(self, name: str, obj: Any, *, private: bool = False) -> None:
        data, content_type = artifact_bytes(obj)
        if not ARTIFACT_NAME.fullmatch(name) or ".." in name.split("/"):
            raise ValueError(
                f"artifact name {name!r}: use letters, digits, '.', '_', '-' and '/' between folders"
            )
        self.flush()
        with_db_retry(
            lambda: self._store_artifact(name, data, content_type, private),
            what=f"run {self.run_id} artifact",
        )

    def _store_artifact(self, name: str, data: bytes, content_type: str, private: bool) -> None:
        with transaction.atomic():
            Artifact.objects.filter(run_id=self.run_id, name=name).delete()
            art = Artifact(
                run_id=self.run_id,
                name=name,
                content_type=content_type,
                size_bytes=len(data),
                private=private,
            )
            folder = "private" if private else "public"
            art.file.save(f"run-{self.run_id}/{folder}/{name}", ContentFile(data), save=False)
            art.save()
            if not private:  # events are shown to every viewer of the run
                event_append(
                    run_id=self.run_id,
                    kind="artifact",
                    data={"name": name, "content_type": content_type, "size": len(data)},
                )

    def check_cancelled(self) -> None:
        now = time.monotonic()
        if now - self._last_cancel_check < CANCEL_CHECK_SECONDS:
            return
        self._last_cancel_check = now
        self._maybe_flush()
        try:
            cancelled = Run.objects.filter(pk=self.run_id, cancel_requested=True).exists()
        except (OperationalError, InterfaceError):
            connection.close()  # database away: keep running; the next check asks again
            return
        if cancelled:
            raise RunCancelled("cancelled by user")

    def record_dataset(self, name: str, content_hash: str, source: str = "") -> None:
        self.datasets_used[name] = content_hash
        self.dataset_sources[name] = source
        self.log(f"dataset {name} sha256={content_hash[:12]} {source}".rstrip())


__all__ = ["DjangoRunContext", "RunEvent"]
