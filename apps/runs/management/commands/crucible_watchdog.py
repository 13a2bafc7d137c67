import time

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.runs.watchdog import watchdog_sweep


class Command(BaseCommand):
    help = "Fail or requeue runs whose worker went silent, and re-send queued runs that lost their message."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true")

    def handle(self, *args, once, **options):
        while True:
            result = watchdog_sweep(grace=not once)
            if any(result.values()):
                self.stdout.write(str(result))
            if once:
                return
            time.sleep(settings.CRUCIBLE_HEARTBEAT_SECONDS)
