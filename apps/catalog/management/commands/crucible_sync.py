from django.core.management.base import BaseCommand

from apps.catalog.services import catalog_sync_from_registry


class Command(BaseCommand):
    help = "Register every installed benchmark and method plugin (idempotent)."

    def handle(self, *args, **options):
        counts = catalog_sync_from_registry()
        self.stdout.write(f"synced {counts['benchmarks']} benchmarks, {counts['methods']} methods")
