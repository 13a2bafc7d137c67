"""Train a small Llama-architecture model (own BPE tokenizer) and register it as a project model.

python manage.py crucible_train_lm --out var/models/tiny --name tiny-stdlib [train_cli options]
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Train a small Llama model (workers.models.lm.train_cli) and register it as a 'project' model."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="model name on the platform (slug)")
        parser.add_argument("--out", required=True, help="directory for the Hugging Face files")
        parser.add_argument(
            "rest", nargs="*", help="further train_cli options after --, e.g. -- --steps 300"
        )

    def handle(self, *args, name, out, rest, **options):
        from apps.catalog.services import model_register
        from workers.models.lm import train_cli

        code = train_cli.main(["--out", out, *rest])
        if code not in (0, None):
            raise CommandError(f"training failed with exit code {code}")
        entry = model_register(
            name=name,
            kind="project",
            path=str(Path(out).resolve()),
            description="small Llama trained by crucible_train_lm",
        )
        self.stdout.write(self.style.SUCCESS(f"registered model {entry.name} at {entry.path}"))
