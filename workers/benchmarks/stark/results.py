"""Aggregating per-instance scores, sharding a release across workers and merging chunks.

Summary keys (all floats):
- `success_rate` (primary): successes / applicable instances, all tiers together;
- `unparseable_rate`: applicable instances whose answer could not be read (no tags, malformed
  content, wrong length) - these are also failures;
- `accuracy_tier2`, `accuracy_tier3`, `success_tier1`, `nerr_tier1` (mean normalised error);
- per family: `success__<family>`; per tier-1 task: `rmse__<task>` (STARK's error, averaged
  over the instances STARK can score), `nerr__<task>`; per tier-2/3 task: `accuracy__<task>`;
- counts: `n_instances`, `n_applicable`, `n_not_applicable`, `n_unparseable`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from workers.benchmarks.stark.instance import Instance
from workers.benchmarks.stark.scoring import InstanceScore, score_instance


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def summarize(scores: Iterable[InstanceScore]) -> dict[str, float]:
    scores = list(scores)
    applicable = [s for s in scores if s.applicable]
    out: dict[str, float] = {
        "n_instances": float(len(scores)),
        "n_applicable": float(len(applicable)),
        "n_not_applicable": float(len(scores) - len(applicable)),
        "n_unparseable": float(sum(not s.parsed for s in applicable)),
        "success_rate": _mean([float(s.success) for s in applicable]),
        "unparseable_rate": _mean([float(not s.parsed) for s in applicable]),
    }
    by_tier: dict[int, list[InstanceScore]] = defaultdict(list)
    by_family: dict[str, list[InstanceScore]] = defaultdict(list)
    by_task: dict[str, list[InstanceScore]] = defaultdict(list)
    for s in applicable:
        by_tier[s.tier].append(s)
        by_family[s.family].append(s)
        by_task[s.task].append(s)
    if by_tier.get(1):
        out["success_tier1"] = _mean([float(s.success) for s in by_tier[1]])
        out["nerr_tier1"] = _mean(
            [s.normalised_error for s in by_tier[1] if s.normalised_error is not None]
        )
    for tier in (2, 3):
        if by_tier.get(tier):
            out[f"accuracy_tier{tier}"] = _mean([float(s.success) for s in by_tier[tier]])
    for family, items in sorted(by_family.items()):
        out[f"success__{family}"] = _mean([float(s.success) for s in items])
    for task, items in sorted(by_task.items()):
        if items[0].tier == 1:
            out[f"rmse__{task}"] = _mean([s.error for s in items if s.error is not None])
            out[f"nerr__{task}"] = _mean(
                [s.normalised_error for s in items if s.normalised_error is not None]
            )
            times = [s.time_error for s in items if s.time_error is not None]
            if times:
                out[f"time_rmse__{task}"] = _mean(times)
        else:
            out[f"accuracy__{task}"] = _mean([float(s.success) for s in items])
    return out


def score_predictions(
    instances: Sequence[Instance], predictions: dict[str, str], *, success_threshold: float = 0.1
) -> dict:
    """Score uploaded predictions (instance id -> answer text) against `instances`.

    Missing ids count as unparseable failures; ids that match no instance are only counted
    (never echoed with answers). Returns {"summary", "scores", "missing", "unknown_ids"}; the
    scores carry no ground truth, so the result can be shown to the uploader.
    """
    if not isinstance(predictions, dict):
        raise TypeError("predictions: expected a dict of instance id -> answer text")
    known = {inst.id for inst in instances}
    scores = [
        score_instance(inst, predictions.get(inst.id), success_threshold=success_threshold)
        for inst in instances
    ]
    missing = sum(inst.id not in predictions for inst in instances)
    unknown = sum(pid not in known for pid in predictions)
    summary = summarize(scores)
    summary["n_missing"] = float(missing)
    return {
        "summary": summary,
        "scores": [s.as_dict() for s in scores],
        "missing": missing,
        "unknown_ids": unknown,
    }


def shard(instance_ids: Sequence[str], n_chunks: int) -> list[list[str]]:
    """Split ids into `n_chunks` contiguous chunks of near-equal size (deterministic, order kept)."""
    if not isinstance(n_chunks, int) or n_chunks < 1:
        raise ValueError(f"n_chunks: must be a positive integer, got {n_chunks!r}")
    ids = list(instance_ids)
    if len(set(ids)) != len(ids):
        raise ValueError("instance_ids: contains duplicates")
    size, extra = divmod(len(ids), n_chunks)
    chunks, start = [], 0
    for k in range(n_chunks):
        end = start + size + (1 if k < extra else 0)
        chunks.append(ids[start:end])
        start = end
    return chunks


def merge_results(chunks: Iterable[Sequence[dict]]) -> dict:
    """Merge per-chunk score lists (InstanceScore.as_dict rows) into one result.

    Raises if an instance appears in two chunks, so a re-run chunk is not counted twice.
    """
    rows: dict[str, dict] = {}
    for chunk in chunks:
        for row in chunk:
            if row["id"] in rows:
                raise ValueError(f"chunks: instance {row['id']} scored in more than one chunk")
            rows[row["id"]] = row
    scores = [InstanceScore(**row) for row in rows.values()]
    return {"summary": summarize(scores), "scores": list(rows.values())}
