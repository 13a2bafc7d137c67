"""Real services: PostgreSQL (pytest-django's test database), Redis, Celery worker processes
and a Daphne ASGI server, all as separate processes sharing the test database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection

from tests.support import free_port, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(config, items):
    if django_settings.PROFILE != "services":
        skip = pytest.mark.skip(
            reason="services tests need DATABASE_URL (PostgreSQL) and REDIS_URL"
        )
        for item in items:
            if "services" in item.keywords:
                item.add_marker(skip)


def service_env() -> dict[str, str]:
    db = connection.settings_dict
    url = f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    return {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": django_settings.REDIS_URL,
        "CRUCIBLE_PLUGIN_MODULES": "tests.platform.probe_plugin",
        "CRUCIBLE_HEARTBEAT_SECONDS": "1",
        "CRUCIBLE_HEARTBEAT_TIMEOUT": "6",
        "CRUCIBLE_RECONCILE_SECONDS": "3",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        "PYTHONUNBUFFERED": "1",
    }


class Proc:
    def __init__(self, args: list[str], log: Path) -> None:
        self.log = log
        self.handle = open(log, "wb")
        self.popen = subprocess.Popen(
            args,
            cwd=ROOT,
            env=service_env(),
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self, sig=signal.SIGKILL) -> None:
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            pass

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.kill(signal.SIGTERM)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
                self.popen.wait(timeout=5)
        self.handle.close()

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


@pytest.fixture
def start_worker(transactional_db, tmp_path):
    procs: list[Proc] = []

    def start(pool: str = "default", name: str | None = None) -> Proc:
        from apps.pools.models import Worker

        # Celery node names are name@host; give the full form so the test knows it.
        name = f"{name or pool + '-w' + str(len(procs))}@test"
        proc = Proc(
            [
                sys.executable,
                "manage.py",
                "crucible_worker",
                "--pool",
                pool,
                "--hostname",
                name,
                "--concurrency",
                "1",
            ],
            tmp_path / f"{name}.log",
        )
        procs.append(proc)
        deadline = time.monotonic() + 60
        while not Worker.objects.filter(hostname=name, last_heartbeat__isnull=False).exists():
            if proc.popen.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker {name} did not start:\n{proc.tail()}")
            time.sleep(0.2)
        proc.hostname = name
        return proc

    yield start
    for proc in procs:
        proc.stop()


@pytest.fixture
def web_server(transactional_db, tmp_path):
    port = free_port()
    proc = Proc(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "crucible.asgi:application",
        ],
        tmp_path / "daphne.log",
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(url, proc.popen, proc.tail, timeout=60)
    proc.url = url
    yield proc
    proc.stop()
