"""Sharded evaluations: when every chunk run of a configuration has succeeded, merge their
private per-instance results (the benchmark's `merge_chunks`) into one result run."""

from __future__ import annotations

import json

from django.db import transaction
from django.utils import timezone

from apps.runs.events import event_append
from apps.runs.models import Artifact, Run, RunStatus, SummaryMetric
from workers.core import registry


def _siblings(run: Run) -> list[Run]:
    n_field, i_field = registry.get_benchmark(run.benchmark.name).chunk_fields
    base = {k: v for k, v in run.benchmark_config.items() if k != i_field}
    candidates = Run.objects.filter(
        sweep_id=run.sweep_id, is_chunk=True, seed=run.seed, method_id=run.method_id
    )
    return [
        r
        for r in candidates
        if {k: v for k, v in r.benchmark_config.items() if k != i_field} == base
        and r.method_config == run.method_config
    ]


def chunks_merge_if_complete(*, run_id: int) -> Run | None:
    run = Run.objects.select_related("benchmark", "method").get(pk=run_id)
    bench_cls = registry.get_benchmark(run.benchmark.name)
    n_field, i_field = bench_cls.chunk_fields
    siblings = _siblings(run)
    expected = int(run.benchmark_config.get(n_field, 1))
    done = [r for r in siblings if r.status == RunStatus.SUCCEEDED]
    if len(done) < expected or len({r.benchmark_config[i_field] for r in done}) < expected:
        return None
    with transaction.atomic():
        # Lock the sweep row so two chunks finishing together merge once.
        from apps.runs.models import Sweep

        Sweep.objects.select_for_update().filter(pk=run.sweep_id).first()
        # The merged result is the unsharded configuration's result: same config, same hash.
        merged_config = {**run.benchmark_config, n_field: 1, i_field: 0}
        if Run.objects.filter(
            merged_from_id=run.sweep_id,
            seed=run.seed,
            method_id=run.method_id,
            benchmark_config=merged_config,
        ).exists():
            return None
        payloads = []
        for chunk in sorted(done, key=lambda r: r.benchmark_config[i_field]):
            art = Artifact.objects.get(run=chunk, name=bench_cls.chunk_artifact, private=True)
            with art.file.open("rb") as handle:
                payloads.append(json.loads(handle.read()))
        from apps.runs.context import finite_or_none

        summary = {k: finite_or_none(float(v)) for k, v in bench_cls.merge_chunks(payloads).items()}
        from apps.runs.services import config_hash

        now = timezone.now()
        merged = Run.objects.create(
            owner=run.owner,
            team=run.team,
            visibility=run.visibility,
            benchmark=run.benchmark,
            method=run.method,
            model=run.model,
            pool=run.pool,
            benchmark_config=merged_config,
            method_config=run.method_config,
            config_hash=config_hash(merged_config, run.method_config, run.model_id),
            seed=run.seed,
            name=run.name or f"merged sweep {run.sweep_id}",
            status=RunStatus.SUCCEEDED,
            started_at=min(r.started_at for r in done),
            finished_at=now,
            summary=summary,
            merged_from_id=run.sweep_id,
            progress_done=1,
            progress_total=1,
            status_reason=f"merged from {expected} chunk runs: "
            + ", ".join(f"#{r.pk}" for r in done),
            code_version=run.code_version,
            package_versions=run.package_versions,
            datasets_used=run.datasets_used,
        )
        SummaryMetric.objects.bulk_create(
            [
                SummaryMetric(run=merged, benchmark_id=run.benchmark_id, key=k, value=v)
                for k, v in summary.items()
            ]
        )
        event_append(run_id=merged.pk, kind="summary", data={"values": summary})
        event_append(
            run_id=merged.pk,
            kind="status",
            data={"status": RunStatus.SUCCEEDED, "reason": merged.status_reason},
        )
    return merged
