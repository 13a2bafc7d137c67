"""Celery tasks: thin wrappers around apps.runs services (the only Django-aware module here),
plus the worker-process wiring: registration, heartbeats, watchdog and device pinning."""

from __future__ import annotations

import logging
import os
import threading

from celery import shared_task, signals

log = logging.getLogger(__name__)

_state: dict[str, object] = {"device": "cpu", "hostname": ""}


@shared_task(name="crucible.execute_run", acks_late=True, ignore_result=True)
def execute_run(run_id: int, attempt: int) -> str:
    from apps.runs.execution import run_execute

    return run_execute(
        run_id=run_id,
        attempt=attempt,
        worker_name=str(_state["hostname"] or "eager"),
        device=str(_state["device"]),
    )


@shared_task(name="crucible.fetch_dataset_version", acks_late=True, ignore_result=True)
def fetch_dataset_version(version_id: int) -> None:
    from apps.catalog.services import dataset_version_fetch

    dataset_version_fetch(version_id=version_id)


def _pool_from_queues(sender) -> str:
    queues = [q.name for q in sender.app.amqp.queues.consume_from.values()] if sender else []
    pools = [q.split(".", 1)[1] for q in queues if q.startswith("pool.")]
    return pools[0] if pools else os.environ.get("CRUCIBLE_DEFAULT_POOL", "default")


class _WorkerHeartbeat(threading.Thread):
    """Worker-level heartbeat in the main worker process; also runs the watchdog sweep and
    shuts the worker down when its pool is drained and it is idle."""

    def __init__(self, hostname: str, interval: float, app) -> None:
        super().__init__(daemon=True, name="crucible-worker-heartbeat")
        self.hostname, self.interval, self.app = hostname, interval, app
        self.stop_event = threading.Event()

    def run(self) -> None:
        from django.db import close_old_connections

        from apps.pools.models import Worker
        from apps.pools.services import worker_heartbeat
        from apps.runs.models import Run, RunStatus
        from apps.runs.watchdog import database_contact_lost, watchdog_sweep

        while not self.stop_event.wait(self.interval):
            try:
                worker_heartbeat(hostname=self.hostname)
                watchdog_sweep()
                worker = (
                    Worker.objects.select_related("pool").filter(hostname=self.hostname).first()
                )
                if (
                    worker
                    and worker.pool.draining
                    and not Run.objects.filter(worker=worker, status=RunStatus.RUNNING).exists()
                ):
                    log.warning(
                        "pool %s drained: shutting down %s", worker.pool.name, self.hostname
                    )
                    self.app.control.shutdown(destination=[self.hostname])
                    return
            except Exception:  # noqa: BLE001 - keep beating through database blips
                log.warning("worker heartbeat failed", exc_info=True)
                database_contact_lost()  # the next sweeps must not mistake the outage for dead workers
            finally:
                close_old_connections()


@signals.worker_ready.connect
def _on_worker_ready(sender=None, **_):
    from django.conf import settings

    from apps.pools.services import worker_register
    from workers.runtime.devices import list_devices

    hostname = sender.hostname
    _state["hostname"] = hostname
    devices = [d.as_dict() for d in list_devices()]
    concurrency = getattr(sender.pool, "limit", None) or sender.concurrency or 1
    worker_register(
        hostname=hostname,
        pool_name=_pool_from_queues(sender),
        devices=devices,
        concurrency=concurrency,
    )
    beat = _WorkerHeartbeat(hostname, settings.CRUCIBLE_HEARTBEAT_SECONDS, sender.app)
    beat.start()
    _state["beat"] = beat


@signals.worker_shutdown.connect
def _on_worker_shutdown(sender=None, **_):
    from apps.pools.services import worker_stopped

    beat = _state.get("beat")
    if beat is not None:
        beat.stop_event.set()
    if _state["hostname"]:
        try:
            worker_stopped(hostname=str(_state["hostname"]))
        except Exception:  # noqa: BLE001
            log.warning("could not mark worker stopped", exc_info=True)


@signals.worker_process_init.connect
def _on_child_start(**_):
    """Each prefork child takes one device (one run per GPU) before CUDA is initialised."""
    from billiard.process import current_process

    from workers.runtime.devices import list_devices, pin_process_to_device

    slot = int(getattr(current_process(), "index", 0) or 0)
    _state["device"] = pin_process_to_device(slot, list_devices())


@signals.celeryd_after_setup.connect
def _on_setup(sender=None, instance=None, **_):
    _state["hostname"] = sender
