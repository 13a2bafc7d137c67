from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.catalog.reproduction import reproduction_markdown


class Command(BaseCommand):
    help = "Regenerate docs/REPRODUCTION.md from the stored runs."

    def add_arguments(self, parser):
        parser.add_argument(
            "--output", default=str(Path(settings.BASE_DIR) / "docs" / "REPRODUCTION.md")
        )

    def handle(self, *args, output, **options):
        text = reproduction_markdown()
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text)
        self.stdout.write(f"wrote {output}")
