"""Helpers for tests (and bench scripts) that start the platform as real processes."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable

import requests


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_healthy(
    url: str, proc: subprocess.Popen, log_tail: Callable[[], str], timeout: float
) -> None:
    """Poll `url`/healthz until it answers; fail with the process's log if it dies or times out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(f"{url}/healthz", timeout=1).ok:
                return
        except requests.RequestException:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not start:\n{log_tail()}")
        time.sleep(0.3)
