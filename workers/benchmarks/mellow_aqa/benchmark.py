"""The `mellow_aqa` benchmark: ReasonAQA-style audio question answering, scored MMAU-style.

Protocol of one run (benchmark x method x config x seed):
1. Data. `source="synthetic"`: seeded clips with exact labels (synth.py), templated questions
   (questions.py); the training mixture holds `synthetic_share` generated questions and the rest
   existing-dataset-style items (captions, yes/no AQA). `source="audiocaps"|"clotho"`: the user's
   copy of the dataset (importers.py) and questions written by the run's registered model from
   the captions (llm_questions.py). The same seed gives every method the same data.
2. `method.fit(train_items, clips, ctx)` trains on the mixture.
3. `method.score(test_items, clips, ctx)` returns one score per option of every multiple-choice
   test item; the prediction is the argmax. Accuracy per family, per reasoning type
   (understanding / deductive / comparative) and in / out of distribution, with 95% Wilson
   intervals; the run page gets a bar chart, the full table and playable examples.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from workers.benchmarks.mellow_aqa import questions as Q
from workers.benchmarks.mellow_aqa.dataset import build_synthetic
from workers.benchmarks.mellow_aqa.evaluation import (
    accuracy_rows,
    chance_accuracy,
    predictions,
    summary_from_rows,
)
from workers.benchmarks.mellow_aqa.examples import save_examples
from workers.benchmarks.mellow_aqa.paper import MELLOW_PAPER
from workers.benchmarks.mellow_aqa.plots import family_figure
from workers.core import (
    Benchmark,
    DatasetSpec,
    Method,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)


class MellowAQAConfig(PluginConfig):
    source: Literal["synthetic", "audiocaps", "clotho"] = Field(
        "synthetic",
        description="synthetic: generated clips with exact labels and templated questions; "
        "audiocaps / clotho: your downloaded copy, questions written by the run's model from captions",
    )
    data_root: str = Field(
        "",
        max_length=1000,
        description="audiocaps / clotho: dataset folder in its published layout",
    )
    ood_source: Literal["", "audiocaps", "clotho"] = Field(
        "",
        description="Real data: a second dataset whose test split is the out-of-distribution set",
    )
    ood_root: str = Field("", max_length=1000, description="Folder of the OOD dataset")
    sample_rate: int = Field(
        16000, ge=8000, le=48000, description="Audio sample rate (Hz); the paper uses 32000"
    )
    seconds: float = Field(
        2.5,
        ge=0.5,
        le=30.0,
        description="Clip length (s); real clips are repeat-padded or cropped (paper: 10)",
    )
    n_train_clips: int = Field(400, ge=4, le=200_000, description="Synthetic: training clips")
    n_train_items: int = Field(
        4000, ge=10, le=5_000_000, description="Synthetic: training question items"
    )
    n_test_clips: int = Field(
        60, ge=2, le=100_000, description="Synthetic: test clips per split (ID and OOD)"
    )
    pairs_per_clip: int = Field(
        2, ge=0, le=10, description="Synthetic: comparison questions per test clip"
    )
    synthetic_share: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="Share of generated questions in the training mixture (ReasonAQA: 0.7); "
        "the rest are existing-dataset items (captioning, yes/no AQA)",
    )
    max_clips: int = Field(2000, ge=1, le=1_000_000, description="Real data: clips used per split")
    questions_per_clip: int = Field(
        6, ge=1, le=20, description="Real data: multiple-choice questions asked per clip"
    )
    pair_questions: int = Field(
        2, ge=0, le=10, description="Real data: comparison questions per clip pair"
    )
    n_examples: int = Field(
        6, ge=0, le=50, description="Examples saved for the run page (audio, spectrogram, answers)"
    )

    @model_validator(mode="after")
    def _paths(self):
        if self.source != "synthetic" and not self.data_root:
            raise ValueError(f"data_root: required for source={self.source!r}")
        if self.ood_source and not self.ood_root:
            raise ValueError("ood_root: required when ood_source is set")
        if self.source == "synthetic" and self.seconds < 2.0:
            raise ValueError("seconds: synthetic clips need at least 2 s to hold four events")
        return self


_FAMILY_METRICS = tuple(
    MetricSpec(
        f"family_{f}",
        unit="fraction",
        description=f"Accuracy on the {f} family ({Q.FAMILY_CATEGORY[f]})",
    )
    for f in (*Q.SINGLE_FAMILIES, *Q.PAIR_FAMILIES)
)


@register_benchmark
class MellowAQABenchmark(Benchmark):
    name = "mellow_aqa"
    title = "ReasonAQA-style audio reasoning (Mellow)"
    description = (
        "Two audio clips and a question: multiple-choice accuracy per question family, "
        "for understanding, deductive and comparative reasoning, in and out of distribution."
    )
    paper = MELLOW_PAPER
    Config = MellowAQAConfig
    metrics = (
        MetricSpec(
            "accuracy",
            primary=True,
            unit="fraction",
            description="Multiple-choice accuracy over all test questions",
        ),
        MetricSpec(
            "accuracy_ci_low",
            unit="fraction",
            description="Lower end of the 95% Wilson interval of accuracy",
        ),
        MetricSpec(
            "accuracy_ci_high",
            unit="fraction",
            description="Upper end of the 95% Wilson interval of accuracy",
        ),
        MetricSpec(
            "accuracy_understanding",
            unit="fraction",
            description="Single-clip perception questions",
        ),
        MetricSpec(
            "accuracy_deductive",
            unit="fraction",
            description="Entailment: true / false / undecidable",
        ),
        MetricSpec(
            "accuracy_comparative", unit="fraction", description="Questions comparing two clips"
        ),
        MetricSpec("accuracy_id", unit="fraction", description="In-distribution test clips"),
        MetricSpec(
            "accuracy_ood",
            unit="fraction",
            description="Held-out pitch bands and event combinations (synthetic) or another dataset (real)",
        ),
        MetricSpec(
            "chance_accuracy", unit="fraction", description="Expected accuracy of uniform guessing"
        ),
        *_FAMILY_METRICS,
    )
    datasets = (
        DatasetSpec(
            "mellow-synthetic",
            "generator",
            "Seeded tones, chirps and noise bursts with exact labels and captions",
        ),
        DatasetSpec(
            "audiocaps",
            "upload",
            "AudioCaps captions + your WAV downloads",
            license="MIT (captions); audio from YouTube",
        ),
        DatasetSpec(
            "clotho",
            "upload",
            "Clotho v2 (Zenodo layout)",
            license="Tampere University licence (non-commercial)",
        ),
    )

    def build_split(self, ctx: RunContext):
        cfg: MellowAQAConfig = self.config
        if cfg.source == "synthetic":
            split = build_synthetic(
                ctx.seed,
                n_train_clips=cfg.n_train_clips,
                n_train_items=cfg.n_train_items,
                n_test_clips=cfg.n_test_clips,
                synthetic_share=cfg.synthetic_share,
                sample_rate=cfg.sample_rate,
                seconds=cfg.seconds,
                pairs_per_clip=cfg.pairs_per_clip,
            )
        else:
            from workers.benchmarks.mellow_aqa.real_data import build_real

            split = build_real(cfg, ctx)
        ctx.record_dataset(f"mellow-{cfg.source}", split.sha256(), f"{len(split.clips)} clips")
        return split

    def run(self, ctx: RunContext, method: Method) -> None:
        for hook in ("fit", "score"):
            if not callable(getattr(method, hook, None)):
                raise TypeError(
                    f"method {method.name!r} does not implement {hook}(), which mellow_aqa needs"
                )
        split = self.build_split(ctx)
        ctx.log(
            f"{len(split.clips)} clips, {len(split.train)} training items "
            f"({split.info.get('n_generated')} generated / {split.info.get('n_existing')} existing), "
            f"{len(split.test)} test questions"
        )
        if not split.test:
            raise ValueError("no test questions were produced")
        method.fit(split.train, split.clips, ctx)
        ctx.progress(0.9, 1.0, "scoring test questions")
        scores = method.score(split.test, split.clips, ctx)
        preds = predictions(scores)
        rows = accuracy_rows(split.test, preds)
        summary = summary_from_rows(rows)
        summary["chance_accuracy"] = chance_accuracy(split.test)
        ctx.log_summary(**summary)
        ctx.log(
            f"accuracy {summary['accuracy']:.3f} [{summary['accuracy_ci_low']:.3f}, "
            f"{summary['accuracy_ci_high']:.3f}] (chance {summary['chance_accuracy']:.3f}), "
            f"id {summary.get('accuracy_id', float('nan')):.3f}, ood {summary.get('accuracy_ood', float('nan')):.3f}"
        )
        ctx.save_artifact(
            "accuracy_by_family",
            family_figure(
                rows,
                summary["chance_accuracy"],
                f"{method.name} on mellow_aqa ({self.config.source}), seed {ctx.seed}",
            ),
        )
        ctx.save_artifact("accuracy_table", rows)
        ctx.save_artifact(
            "test_predictions",
            [
                {
                    "item": it.item_id,
                    "family": it.family,
                    "reasoning": it.reasoning,
                    "split": it.split,
                    "question": it.question,
                    "options": " | ".join(it.options),
                    "reference": it.answer,
                    "model_answer": it.options[p],
                    "correct": p == it.answer_index,
                }
                for it, p in zip(split.test, preds, strict=True)
            ],
        )
        save_examples(ctx, method, split.test, scores, split.clips, self.config.n_examples)
        ctx.progress(1.0, 1.0, "done")
