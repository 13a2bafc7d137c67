"""Start a Celery worker for a pool: `manage.py crucible_worker --pool gpu`.

Concurrency defaults to the number of GPUs (one run per device), or 1 on a CPU-only host.
"""

import os
import sys

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Run a Celery worker consuming the queue of one worker pool."

    def add_arguments(self, parser):
        parser.add_argument("--pool", default=os.environ.get("CRUCIBLE_POOL", "default"))
        parser.add_argument(
            "--concurrency", type=int, default=0, help="default: one per GPU, else 1"
        )
        parser.add_argument("--hostname", default="")
        parser.add_argument("--loglevel", default="WARNING")

    def handle(self, *args, pool, concurrency, hostname, loglevel, **options):
        from crucible.celery import app

        from workers.runtime.devices import list_devices

        devices = list_devices()
        gpus = [d for d in devices if d.kind == "cuda"]
        concurrency = concurrency or max(len(gpus), 1)
        hostname = hostname or f"{pool}-%h-{os.getpid()}"
        argv = [
            "worker",
            "-Q",
            f"pool.{pool}",
            "-c",
            str(concurrency),
            "-n",
            hostname,
            "--loglevel",
            loglevel,
            "--without-gossip",
            "--without-mingle",
            "-P",
            "prefork",
        ]
        # Every plugin is imported here, before the pool forks: the children inherit the
        # modules (torch, transformers, scikit-learn...) instead of each paying ~9 s of imports
        # on its first run (bench/dispatch_latency.py measures that first run). No plugin may
        # initialise CUDA at import: a forked child could not use it, hence the check.
        from workers.core import registry

        registry.discover()
        if "torch" in sys.modules and sys.modules["torch"].cuda.is_initialized():
            raise CommandError("a plugin initialised CUDA at import time; children cannot fork it")
        self.stdout.write(
            f"worker for pool '{pool}' with {concurrency} process(es): {', '.join(d.name for d in devices)}"
        )
        sys.stdout.flush()
        app.worker_main(argv)
