"""`manage.py crucible_worker` prepares the parent process before Celery forks its pool."""

from __future__ import annotations

import pytest
from django.core.management import call_command


def test_plugins_are_imported_in_the_parent_before_the_pool_forks(monkeypatch):
    """Children inherit the imported plugins instead of paying ~9 s on their first run."""
    from crucible.celery import app

    from workers.core import registry

    monkeypatch.setattr(registry, "_discovered", False)
    seen = {}

    def fake_worker_main(argv):  # stands in for Celery's blocking main loop
        seen["discovered_before_fork"] = registry._discovered
        seen["argv"] = argv

    monkeypatch.setattr(app, "worker_main", fake_worker_main)
    call_command("crucible_worker", "--pool", "gpu", "--concurrency", "2", "--hostname", "w1@h")
    assert seen["discovered_before_fork"] is True
    assert seen["argv"][:6] == ["worker", "-Q", "pool.gpu", "-c", "2", "-n"]


def test_a_plugin_that_initialises_cuda_at_import_stops_the_worker(monkeypatch):
    import torch
    from crucible.celery import app
    from django.core.management.base import CommandError

    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(app, "worker_main", lambda argv: pytest.fail("must not start the pool"))
    with pytest.raises(CommandError, match="initialised CUDA"):
        call_command("crucible_worker", "--pool", "default")
