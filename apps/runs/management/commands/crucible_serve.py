"""Embedded profile in one command: the ASGI web server and a worker, together.

The worker runs as a child process (Celery's prefork pool needs its own main thread) and is
stopped with the server. Both share the SQLite database and the file-system broker under var/.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve the platform on HOST:PORT with a worker for the default pool."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--workers", type=int, default=1, help="worker processes to start (0 for none)"
        )
        parser.add_argument("--pool", default=settings.CRUCIBLE_DEFAULT_POOL)

    def handle(self, *args, host, port, workers, pool, **options):
        call_command("crucible_setup")
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        children = []
        for i in range(workers):
            children.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        manage,
                        "crucible_worker",
                        "--pool",
                        pool,
                        "--hostname",
                        f"{pool}-embedded{i}-%h",
                    ],
                    env=os.environ.copy(),
                )
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Crucible ({settings.PROFILE} profile) on http://{host}:{port}/ with {workers} worker(s)"
            )
        )
        # SIGTERM (e.g. from a process manager) must stop the worker children too, not orphan them.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            web = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "daphne",
                    "-b",
                    host,
                    "-p",
                    str(port),
                    "crucible.asgi:application",
                ],
                env={
                    **os.environ,
                    "PYTHONPATH": os.pathsep.join(
                        [str(Path(settings.BASE_DIR) / "platform"), str(settings.BASE_DIR)]
                    ),
                },
            )
            children.append(web)
            web.wait()
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
