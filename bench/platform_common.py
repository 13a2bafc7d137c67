"""Shared set-up of the platform benchmarks: a scratch database, Django, Daphne and workers
as real processes on loopback, and the load average (the machine is shared: every figure
table records it)."""

from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]

PLUGINS = "tests.platform.probe_plugin"


def require_scratch_postgres(var: str = "DATABASE_URL") -> str:
    """The benchmarks drop and recreate their database: only crucible_bench* on loopback."""
    url = os.environ.get(var, "")
    parsed = urlparse(url)
    if not url.startswith("postgres") or parsed.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"{var} must be a loopback PostgreSQL URL")
    if not parsed.path.lstrip("/").startswith("crucible_bench"):
        raise SystemExit(
            f"{var} must name a scratch database crucible_bench*: it is dropped and recreated"
        )
    return url


def recreate_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def bench_env(var_dir: str) -> dict[str, str]:
    env = {
        **os.environ,
        "CRUCIBLE_PLUGIN_MODULES": os.environ.get("CRUCIBLE_PLUGIN_MODULES", PLUGINS),
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        "CRUCIBLE_VAR_DIR": os.environ.get("CRUCIBLE_VAR_DIR", var_dir),
    }
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings")
    return env


def django_setup(*, migrate: bool = True) -> None:
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        call_command("crucible_sync", verbosity=0)


def bench_user(username: str = "bench", runs_quota: int = 1_000_000):
    from apps.accounts.models import Team, User
    from apps.accounts.services import user_create

    user = User.objects.filter(username=username).first() or user_create(
        username=username, password="bench-password-1"
    )
    from apps.runs.services import _owner_team

    _owner_team(user)  # the personal team exists before anything is timed
    Team.objects.filter(memberships__user=user).update(
        max_concurrent_runs=runs_quota, max_runs_per_day=runs_quota
    )
    return user


def start_daphne(env: dict[str, str], port: int, log_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(
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
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=open(log_dir / "daphne.log", "wb"),
        stderr=subprocess.STDOUT,
    )


def start_worker(
    env: dict[str, str], index: int, log_dir: Path, pool: str = "default"
) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "crucible_worker",
            "--pool",
            pool,
            "--hostname",
            f"bench{index}@bench",
            "--concurrency",
            "1",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=open(log_dir / f"worker{index}.log", "wb"),
        stderr=subprocess.STDOUT,
    )


def stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM each process group we started, then SIGKILL what did not stop."""
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def wait_for(predicate, timeout: float, what: str, interval: float = 0.3) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if predicate():
                return
        except SystemExit:
            raise
        except Exception:  # noqa: BLE001 - not up yet
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not come up in {timeout:.0f} s")
        time.sleep(interval)


def machine_line() -> str:
    load = os.getloadavg()
    return (
        f"machine: {platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
