"""Run each seed paper's claimed method and its baseline on this installation, then write
docs/REPRODUCTION.md from the stored runs.

Runs execute in this process (no broker needed) with the plugins' default configuration,
plus any `--set paper-key:benchmark.field=value` overrides; they are stored like any run,
so they also appear on the leaderboards and the Papers page.
"""

from __future__ import annotations

import json
import time

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.catalog.models import Paper
from apps.pools.models import WorkerPool
from apps.runs.execution import run_execute
from apps.runs.models import Run
from apps.runs.services import run_submit
from workers.core import registry


class Command(BaseCommand):
    help = "Execute claim runs (method and baseline, several seeds) and regenerate docs/REPRODUCTION.md."

    def add_arguments(self, parser):
        parser.add_argument(
            "--papers", default="", help="comma-separated paper keys (default: all with a claim)"
        )
        parser.add_argument("--seeds", type=int, default=3)
        parser.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar="PAPER:SECTION.FIELD=VALUE",
        )
        parser.add_argument(
            "--skip-existing",
            action="store_true",
            help="skip seeds that already have a finished run",
        )
        parser.add_argument(
            "--model", default="", help="registered model for methods that need one (LLM methods)"
        )

    def handle(self, *args, papers, seeds, overrides, skip_existing, model, **options):
        call_command("crucible_setup")  # migrate, register plugins, ensure an admin owns the runs
        user = User.objects.filter(is_superuser=True).order_by("id").first()
        wanted = [p for p in papers.split(",") if p]
        qs = Paper.objects.exclude(claim__benchmark="")
        if wanted:
            qs = qs.filter(key__in=wanted)
            missing = set(wanted) - set(qs.values_list("key", flat=True))
            if missing:
                raise CommandError(f"unknown paper key(s): {sorted(missing)}")
        overrides = self._overrides(overrides)
        pool = WorkerPool.objects.get(name="default")
        paused = pool.paused
        WorkerPool.objects.filter(pk=pool.pk).update(
            paused=True
        )  # keep runs off the broker: we execute here
        try:
            for paper in qs.order_by("key"):
                claim = paper.claim
                bconf = overrides.get((paper.key, "benchmark"), {})
                needs_model = [
                    m
                    for m in (claim["method"], claim["baseline"])
                    if registry.get_method(m).requires_model
                ]
                if needs_model and not model:
                    self.stdout.write(
                        self.style.WARNING(
                            f"{paper.key}: skipped, {', '.join(needs_model)} need(s) a registered model (pass --model NAME)"
                        )
                    )
                    continue
                for method in (claim["method"], claim["baseline"]):
                    mconf = (
                        overrides.get((paper.key, "method"), {})
                        if method == claim["method"]
                        else {}
                    )
                    for seed in range(seeds):
                        if (
                            skip_existing
                            and Run.objects.filter(
                                benchmark__name=claim["benchmark"],
                                method__name=method,
                                seed=seed,
                                status="succeeded",
                            ).exists()
                        ):
                            continue
                        start = time.monotonic()
                        run = run_submit(
                            user=user,
                            benchmark=claim["benchmark"],
                            method=method,
                            benchmark_config=bconf,
                            method_config=mconf,
                            seed=seed,
                            name=f"reproduce {paper.key}",
                            model=model if method in needs_model else None,
                        )
                        WorkerPool.objects.filter(pk=pool.pk).update(paused=False)
                        status = run_execute(
                            run_id=run.pk, attempt=run.attempt, worker_name="reproduce"
                        )
                        WorkerPool.objects.filter(pk=pool.pk).update(paused=True)
                        self.stdout.write(
                            f"{paper.key}: {method} seed {seed} -> {status} "
                            f"({time.monotonic() - start:.1f}s, run {run.pk})"
                        )
        finally:
            WorkerPool.objects.filter(pk=pool.pk).update(paused=paused)
        call_command("crucible_reproduction")

    @staticmethod
    def _overrides(pairs: list[str]) -> dict[tuple[str, str], dict]:
        out: dict[tuple[str, str], dict] = {}
        for pair in pairs:
            try:
                paper, rest = pair.split(":", 1)
                key, value = rest.split("=", 1)
                section, field = key.split(".", 1)
            except ValueError:
                raise CommandError(
                    f"--set expects PAPER:benchmark.FIELD=VALUE, got {pair!r}"
                ) from None
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                parsed = value
            out.setdefault((paper, section), {})[field] = parsed
        return out
