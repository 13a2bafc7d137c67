"""Retry database writes across a database restart or failover.

A worker must not lose a run's metrics because PostgreSQL restarted for a few seconds: the
write is retried on a fresh connection, with the same data, so nothing is lost or reordered
(events carry their seq from the run row, allocated inside the retried transaction).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

log = logging.getLogger(__name__)
T = TypeVar("T")


def with_db_retry(fn: Callable[[], T], *, what: str = "database write") -> T:
    deadline = time.monotonic() + getattr(settings, "CRUCIBLE_DB_RETRY_SECONDS", 120.0)
    delay = 0.2
    while True:
        try:
            return fn()
        except (OperationalError, InterfaceError) as exc:
            if connection.in_atomic_block or time.monotonic() > deadline:
                raise  # inside an outer transaction the caller must retry the whole of it
            log.warning("%s failed (%s); retrying in %.1fs", what, exc, delay)
            connection.close()
            time.sleep(delay)
            delay = min(delay * 2, 5.0)
