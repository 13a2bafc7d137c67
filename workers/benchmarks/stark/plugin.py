"""The STARK benchmark plugin: load instances, ask the method, score as STARK does, report."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from workers.benchmarks.stark import catalogue
from workers.benchmarks.stark.figures import (
    compare_by_family,
    entries_from_leaderboard,
    error_by_family,
)
from workers.benchmarks.stark.importer import (
    RELEASE_SHA256,
    RELEASE_URL,
    load_release,
    unpack_release,
)
from workers.benchmarks.stark.instance import Instance
from workers.benchmarks.stark.protocol import StarkAnswer
from workers.benchmarks.stark.results import merge_results, shard, summarize
from workers.benchmarks.stark.scoring import score_instance
from workers.core import (
    Benchmark,
    DatasetSpec,
    MetricSpec,
    Paper,
    PluginConfig,
    RunContext,
    register_benchmark,
)
from workers.core.data import fetch_url, sha256_tree, shared_data_dir

STARK_PAPER = Paper(
    key="stark",
    title="Benchmarking Spatiotemporal Reasoning in LLMs and Reasoning Models: Capabilities and Challenges",
    authors=("Pengrui Quan", "Brian Wang", "Kang Yang", "Liying Han", "Mani Srivastava"),
    venue="NeurIPS 2025 Datasets and Benchmarks",
    year=2025,
    abstract=(
        "STARK evaluates LLMs on spatio-temporal reasoning for cyber-physical systems in three "
        "tiers: state estimation from range, bearing, proximity and event sensors and field "
        "imputation/forecasting; reasoning over estimated states (DE-9IM spatial and Allen "
        "temporal relations); and world-knowledge-aware reasoning. Models answer directly "
        "(text) or by writing and executing Python (code)."
    ),
    headline_claim=(
        "LLMs do poorly on geometric state estimation in text mode, code interpreters "
        "help, and first-principles solvers remain far more accurate on tier 1."
    ),
    code_url="https://github.com/nesl/STARK_Benchmark",
    url="https://arxiv.org/abs/2505.11618",
    claim_benchmark="stark",
    claim_method="stark_llm_code",
    claim_baseline="stark_llm_text",
    claim_metric="success_rate",
    tags=("llm", "spatio-temporal", "benchmark"),
)

SAMPLE_DIR = "stark-sample"


class StarkConfig(PluginConfig):
    source: Literal["sample", "release", "generator"] = Field(
        "sample",
        description="sample: the shared sample; release: the full release (release_dir, "
        "or downloaded from release_url); generator: fresh seeded instances",
    )
    release_dir: str = Field(
        "", max_length=1000, description="Unpacked release folder (data_final_v5)"
    )
    release_url: str = Field(
        RELEASE_URL, max_length=1000, description="Archive URL used when release_dir is empty"
    )
    release_sha256: str = Field(
        RELEASE_SHA256, min_length=64, max_length=64, description="SHA-256 of the archive"
    )
    tier: int = Field(0, ge=0, le=3, description="Only this tier (0 = all tiers)")
    families: str = Field(
        "",
        max_length=200,
        description="Comma-separated families (localization, tracking, "
        "field, spatial, temporal, spatiotemporal, world_knowledge); empty = all",
    )
    tasks: str = Field(
        "", max_length=5000, description="Comma-separated STARK task ids; empty = all"
    )
    split: Literal["all", "dev", "test"] = Field(
        "all",
        description="dev/test: a fixed hash split of instance ids; ground truth of 'test' is "
        "never written to artifacts or logs",
    )
    limit_per_task: int = Field(
        1, ge=1, le=100000, description="First N instances of each task folder"
    )
    tracking_steps: int = Field(
        catalogue.TRACKING_STEPS,
        ge=1,
        le=50,
        description="Online tracking steps scored (STARK's ts_len)",
    )
    success_threshold: float = Field(
        0.1, gt=0, le=10, description="Tier-1 success: normalised error <= this"
    )
    n_chunks: int = Field(1, ge=1, le=1000, description="Split the instances into this many chunks")
    chunk_index: int = Field(0, ge=0, le=999, description="Which chunk this run evaluates")
    gen_per_task: int = Field(2, ge=1, le=1000, description="Generator: instances per task")
    gen_noise: float = Field(
        0.01, ge=0, le=0.5, description="Generator: sensor noise level (STARK's sigma)"
    )
    gen_region_radius: float = Field(
        4.0, gt=0, le=10, description="Generator: proximity sensor radius"
    )
    gen_n_sensors: int = Field(4, ge=3, le=8, description="Generator: sensors per instance")

    # Bad names fail before queueing, naming the field (not when the worker loads the data).
    @field_validator("families")
    @classmethod
    def _known_families(cls, value: str) -> str:
        bad = sorted({f.strip() for f in value.split(",") if f.strip()} - set(catalogue.FAMILIES))
        if bad:
            raise ValueError(f"unknown family {bad}; choose from {list(catalogue.FAMILIES)}")
        return value

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, value: str) -> str:
        bad = sorted({t.strip() for t in value.split(",") if t.strip()} - set(catalogue.TASKS))
        if bad:
            raise ValueError(f"unknown STARK task id {bad[:5]}")
        return value

    @field_validator("chunk_index")
    @classmethod
    def _chunk_in_range(cls, value: int, info: ValidationInfo) -> int:
        n_chunks = info.data.get("n_chunks")
        if n_chunks is not None and value >= n_chunks:
            raise ValueError(f"{value} is not below n_chunks={n_chunks}")
        return value


def split_of(instance_id: str) -> str:
    """A fixed 50/50 split by hash of the id (STARK itself publishes no split)."""
    return "test" if hashlib.sha256(instance_id.encode()).digest()[0] % 2 else "dev"


@register_benchmark
class StarkBenchmark(Benchmark):
    name = "stark"
    title = "STARK spatio-temporal reasoning"
    description = (
        "STARK's 25+ task families over three tiers, scored exactly as STARK does "
        "(answers between [RESULTS_START] and [RESULTS_END])."
    )
    paper = STARK_PAPER
    Config = StarkConfig
    leaderboards = ("overall", "tier1", "tier2", "tier3", "task")
    chunk_fields = ("n_chunks", "chunk_index")
    chunk_artifact = "scores.json"
    datasets = (
        DatasetSpec(
            "stark-sample",
            "shared",
            "First 4 instances of every task of the release",
            license="BSD-3-Clause",
        ),
        DatasetSpec(
            "stark-release",
            "url",
            "STARK data_final_v5 (STARK-L)",
            url=RELEASE_URL,
            sha256=RELEASE_SHA256,
            license="BSD-3-Clause",
        ),
        DatasetSpec("stark-generated", "generator", "Fresh seeded tier-1/tier-2 instances"),
    )
    metrics = (
        MetricSpec(
            "success_rate",
            "max",
            primary=True,
            description="Successes over applicable instances, all tiers",
        ),
        MetricSpec(
            "unparseable_rate", "min", description="Answers without readable [RESULTS_START] block"
        ),
        MetricSpec("success_tier1", "max", description="Tier 1: normalised error <= threshold"),
        MetricSpec(
            "nerr_tier1",
            "min",
            description="Tier 1 mean normalised error (1 = STARK's centre guess)",
        ),
        MetricSpec("accuracy_tier2", "max", description="Tier 2 accuracy"),
        MetricSpec("accuracy_tier3", "max", description="Tier 3 accuracy"),
    )

    # -- data --------------------------------------------------------------------------------
    def _root(self, ctx: RunContext) -> Path:
        cfg = self.config
        if cfg.source == "sample":
            shared = shared_data_dir()
            if shared is None or not (shared / SAMPLE_DIR).is_dir():
                raise FileNotFoundError(
                    "source=sample: ../shared/data/stark-sample is not available here"
                )
            return shared / SAMPLE_DIR
        if cfg.source == "release":
            if cfg.release_dir:
                return Path(cfg.release_dir)
            cache = ctx.data_path("stark")
            archive = fetch_url(cfg.release_url, cfg.release_sha256, cache / "data_final.tar.gz")
            return unpack_release(archive, cache / "release")
        from workers.benchmarks.stark.generators import write_release

        dest = ctx.scratch_dir() / "stark-generated"
        write_release(
            dest,
            seed=ctx.seed,
            per_task=cfg.gen_per_task,
            noise=cfg.gen_noise,
            region_radius=cfg.gen_region_radius,
            n_sensors=cfg.gen_n_sensors,
            tasks=self._task_filter(),
        )
        return dest

    def _task_filter(self) -> list[str] | None:
        wanted = [t.strip() for t in self.config.tasks.split(",") if t.strip()]
        return wanted or None

    def load(self, ctx: RunContext) -> list[Instance]:
        cfg = self.config
        families = [f.strip() for f in cfg.families.split(",") if f.strip()] or None
        root = self._root(ctx)
        instances = load_release(
            root,
            tasks=self._task_filter(),
            families=families,
            tiers=[cfg.tier] if cfg.tier else None,
            limit_per_task=cfg.limit_per_task,
            tracking_steps=cfg.tracking_steps,
        )
        ctx.record_dataset(
            f"stark-{cfg.source}",
            sha256_tree(root) if cfg.source != "release" or cfg.release_dir else cfg.release_sha256,
            str(root),
        )
        # each task folder is a dataset version of its own (the leaderboard groups by task)
        for folder in sorted({i.id.rsplit("/", 1)[0] for i in instances}):
            ctx.record_dataset(f"stark/{folder}", sha256_tree(root / folder), str(root / folder))
        if cfg.split != "all":
            instances = [i for i in instances if split_of(i.id) == cfg.split]
        ids = shard([i.id for i in instances], cfg.n_chunks)[cfg.chunk_index]
        keep = set(ids)
        return [i for i in instances if i.id in keep]

    # -- protocol ----------------------------------------------------------------------------
    def run(self, ctx: RunContext, method) -> None:
        cfg = self.config
        hide_truth = cfg.split == "test"
        instances = self.load(ctx)
        if not instances:
            raise ValueError(
                "no STARK instances match the configuration (tier/families/tasks/split)"
            )
        total = len(instances)
        chunk_note = f"chunk {cfg.chunk_index + 1}/{cfg.n_chunks}"
        ctx.log(f"STARK: {total} instances from {cfg.source} ({chunk_note})")
        ctx.progress(0, total, chunk_note)
        scores, rows = [], []
        for k, inst in enumerate(instances):
            ctx.check_cancelled()
            try:
                reply = method.answer(inst.without_answer(), ctx)
            except Exception as exc:  # a failing method answer is a failure, not a crashed run
                ctx.log(f"{inst.id}: method raised {type(exc).__name__}: {exc}")
                reply = StarkAnswer("", info={"error": f"{type(exc).__name__}: {exc}"})
            score = score_instance(
                inst,
                reply.text,
                applicable=reply.applicable,
                success_threshold=cfg.success_threshold,
            )
            scores.append(score)
            row = {
                **score.as_dict(),
                "prompt": inst.prompt,
                "steps": inst.steps,
                "response": reply.text,
                "info": reply.info,
            }
            if hide_truth:  # per-instance scores of a binary task would reveal its label
                row = {key: row[key] for key in _PUBLIC_KEYS}
            else:
                row["ground_truth"] = inst.answer.tolist()
            rows.append(row)
            if (k + 1) % 10 == 0 or k + 1 == total:
                ctx.progress(k + 1, total, chunk_note)
                partial = summarize(scores)
                ctx.log_metrics(
                    k + 1,
                    success_rate=partial["success_rate"],
                    unparseable_rate=_finite(partial["unparseable_rate"]),
                )
        summary = summarize(scores)
        if hasattr(method, "run_summary"):
            summary.update(method.run_summary())
        ctx.log_summary(**{k: v for k, v in summary.items() if isinstance(v, (int, float))})
        ctx.save_artifact(
            "instances.json",
            {"chunk": chunk_note, "hidden_ground_truth": hide_truth, "instances": rows},
        )
        ctx.save_artifact("error_by_family", error_by_family(scores))
        # Per-instance scores stay on the server: merging chunks needs them, and for the
        # hidden split they would reveal labels.
        ctx.save_artifact("scores.json", [s.as_dict() for s in scores], private=True)

    @classmethod
    def leaderboard_figure(cls, board: dict):
        # Error per task family for every method/model on the leaderboard (issue item 7).
        return compare_by_family(entries_from_leaderboard(board))

    @classmethod
    def merge_chunks(cls, chunk_payloads: list) -> dict[str, float]:
        merged = merge_results(chunk_payloads)["summary"]
        return {k: v for k, v in merged.items() if isinstance(v, (int, float))}


_PUBLIC_KEYS = (
    "id",
    "task",
    "tier",
    "family",
    "applicable",
    "parsed",
    "prompt",
    "steps",
    "response",
    "info",
)


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0
