"""ReasonAQA-style data from real captioned audio (AudioCaps / Clotho) with LLM-written questions.

Generated share: the run's registered model writes multiple-choice and detailed questions from
each clip's captions, and comparisons from pairs of clips (llm_questions.py). Existing share:
captioning items (the captions themselves), sized so that generated / total = synthetic_share.
In-distribution test questions come from the dataset's test split; out-of-distribution ones
from another dataset's test split (e.g. train on AudioCaps, test OOD on Clotho), when given.
"""

from __future__ import annotations

import numpy as np

from workers.benchmarks.mellow_aqa.dataset import AQASplit, load_real_clips
from workers.benchmarks.mellow_aqa.importers import IMPORTERS
from workers.benchmarks.mellow_aqa.items import AQAItem
from workers.benchmarks.mellow_aqa.llm_questions import (
    GenerationStats,
    generate_pair,
    generate_single,
)


def _questions(
    model, clips, rng, stats, cfg, split: str, ctx, done: list[int], total: int
) -> list[AQAItem]:
    items: list[AQAItem] = []
    for i, c in enumerate(clips):
        ctx.check_cancelled()
        items += generate_single(
            model, c.clip_id, c.captions, rng, stats, n=cfg.questions_per_clip, split=split
        )
        if cfg.pair_questions and len(clips) > 1:
            b = clips[(i + 1 + int(rng.integers(len(clips) - 1))) % len(clips)]
            items += generate_pair(
                model,
                c.clip_id,
                c.captions,
                b.clip_id,
                b.captions,
                rng,
                stats,
                n=cfg.pair_questions,
                split=split,
            )
        done[0] += 1
        ctx.progress(done[0], total, f"LLM questions {done[0]}/{total} clips")
    return items


def build_real(cfg, ctx) -> AQASplit:
    model = ctx.model
    if model is None or not hasattr(model, "complete"):
        raise ValueError(
            f"source={cfg.source!r}: question generation needs a registered chat model "
            "for the run (an OpenAI-compatible endpoint or a local Hugging Face model)"
        )
    load = IMPORTERS[cfg.source]
    reports = {"train": load(cfg.data_root, "train"), "test": load(cfg.data_root, "test")}
    if cfg.ood_source:
        reports["ood"] = IMPORTERS[cfg.ood_source](cfg.ood_root, "test")
    for name, rep in reports.items():
        ctx.log(
            f"{name}: {len(rep.clips)} clips from {rep.rows} caption rows, {rep.missing_audio} without audio"
        )
        if not rep.clips:
            raise ValueError(f"data_root: no {name} clips with audio were found")
    rng = np.random.default_rng([ctx.seed, 7])
    records = {k: r.clips[: cfg.max_clips] for k, r in reports.items()}
    clips = {k: load_real_clips(v, cfg.sample_rate, cfg.seconds) for k, v in records.items()}
    stats, done = GenerationStats(), [0]
    total = sum(len(v) for v in clips.values())
    generated = _questions(model, clips["train"], rng, stats, cfg, "id", ctx, done, total)
    test = [
        it
        for it in _questions(model, clips["test"], rng, stats, cfg, "id", ctx, done, total)
        if it.is_mcq
    ]
    if "ood" in clips:
        test += [
            it
            for it in _questions(model, clips["ood"], rng, stats, cfg, "ood", ctx, done, total)
            if it.is_mcq
        ]
    share = cfg.synthetic_share
    n_existing = (
        int(round(len(generated) * (1 - share) / share)) if share > 0 else len(clips["train"])
    )
    captions = [(c.clip_id, cap) for c in clips["train"] for cap in c.captions]
    existing = [
        AQAItem(f"cap{k}", cid, cid, "Describe the audio.", cap, "captioning", origin="existing")
        for k, (cid, cap) in enumerate(
            captions[int(rng.integers(len(captions)))] for _ in range(n_existing)
        )
    ]
    train = (generated if share > 0 else []) + existing
    rng.shuffle(train)
    all_clips = {c.clip_id: c for group in clips.values() for c in group}
    info = {
        "llm_calls": stats.calls,
        "llm_questions_parsed": stats.parsed,
        "llm_questions_kept": stats.kept,
        "llm_dropped": stats.dropped,
        "n_generated": len(generated),
        "n_existing": n_existing,
    }
    ctx.log(
        f"LLM generation: {stats.calls} calls, {stats.parsed} questions parsed, {stats.kept} kept, dropped {stats.dropped}"
    )
    return AQASplit(all_clips, train, test, info)
