"""Platform benchmark: inference-time search for text-to-video diffusion (DLBS, Oshima et al. 2025).

Protocol: train (or reuse, cached by config hash) the small text-conditioned latent video
diffusion model on the moving-shapes dataset and the reward networks; calibrate the reward's
metric weights to pairwise judgements (derived from the ground-truth attributes, or read from an
uploaded judgement file); then, for each prompt of the run (drawn by the seed from the 96) and
each point of the experiment, call the method's sampler at an NFE budget and score the video it
returns. The method and the reference samplers see the same noise seeds per (prompt, point).

Experiments
* budget: x = KB in `budgets`; the NFE budget is KB x denoising_steps (what best-of-KB costs).
* lookahead: x = T' in `lookahead_values` at the fixed budget `lookahead_kb` x steps (the method
  trades candidates for lookahead steps; only methods with lookahead are affected).
* steps: x = denoising steps in `steps_values` at the fixed NFE budget `steps_nfe` (more
  denoising steps leave less budget for search).

Metrics (at the last x, means over prompts): the calibrated reward (primary), each raw metric,
the NFE spent, text-consistency accuracy and the ground-truth oracle score (held out: it is what
the synthetic judgements are derived from, not what the samplers optimise).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from pydantic import Field, field_validator

from workers.benchmarks.video_dlbs.calibration import (
    Calibration,
    calibrate,
    load_judgements,
    pairs_from_groups,
)
from workers.benchmarks.video_dlbs.data import ALL_PROMPTS, prompt_text
from workers.benchmarks.video_dlbs.interface import VideoSearchMethod
from workers.benchmarks.video_dlbs.paper import DLBS_PAPER
from workers.benchmarks.video_dlbs.plots import curves_figure, save_gif, video_grid
from workers.benchmarks.video_dlbs.rewards import (
    CACHE_NAME as JUDGE_CACHE,
)
from workers.benchmarks.video_dlbs.rewards import (
    METRICS,
    JudgeConfig,
    VideoRewards,
    get_or_train_judges,
)
from workers.core import (
    Benchmark,
    DatasetSpec,
    Method,
    MetricSpec,
    PluginConfig,
    RunContext,
    get_method,
    register_benchmark,
)
from workers.methods.dlbs.samplers import Scorer, ddim
from workers.models.video_diffusion.interface import CountedModel
from workers.models.video_diffusion.train import VideoModelConfig, get_or_train

CALIBRATION_CACHE = "video_dlbs_calibration"


class VideoDlbsConfig(PluginConfig):
    experiment: Literal["budget", "lookahead", "steps"] = Field(
        "budget",
        description="Reward vs NFE budget, lookahead T' vs search, or denoising steps vs search.",
    )
    budgets: list[int] = Field(
        [2, 4, 8, 16, 32],
        min_length=1,
        max_length=12,
        description="KB values (budget = KB x denoising steps NFE).",
    )
    lookahead_values: list[int] = Field(
        [1, 2, 4, 8],
        min_length=1,
        max_length=12,
        description="Lookahead steps T' (lookahead experiment).",
    )
    lookahead_kb: int = Field(
        8, ge=1, le=256, description="KB of the lookahead experiment's budget."
    )
    steps_values: list[int] = Field(
        [5, 10, 20, 40],
        min_length=1,
        max_length=12,
        description="Denoising steps (steps experiment).",
    )
    steps_nfe: int = Field(160, ge=1, le=100_000, description="NFE budget of the steps experiment.")
    denoising_steps: int = Field(
        10, ge=2, le=200, description="DDIM steps S (budget and lookahead experiments)."
    )
    n_prompts: int = Field(4, ge=1, le=96, description="Prompts per run (drawn by the seed).")
    reference_samplers: list[str] = Field(
        ["dlbs-ddim", "dlbs-best-of-n", "dlbs-greedy"],
        max_length=8,
        description="Samplers run alongside the method for the side-by-side videos and curves.",
    )
    model_steps: int = Field(1500, ge=1, le=200_000, description="Training steps of the eps-net.")
    ae_steps: int = Field(
        500, ge=1, le=100_000, description="Training steps of the frame autoencoder."
    )
    model_width: int = Field(
        32, ge=8, le=256, description="Channel width of the eps-net (multiple of 8)."
    )
    judge_steps: int = Field(
        400, ge=1, le=100_000, description="Training steps of the reward networks."
    )
    calibration_prompts: int = Field(
        24, ge=2, le=96, description="Prompts in the calibration pool."
    )
    calibration_per_prompt: int = Field(
        4, ge=2, le=32, description="Videos per calibration prompt."
    )
    judgement_temperature: float = Field(
        0.05,
        ge=0,
        le=10,
        description="Bradley-Terry noise of the synthetic judgements (0 = noiseless).",
    )
    judgements_file: str = Field(
        "", description="JSON Lines judgement file (pairwise or scored) to calibrate from instead."
    )
    gifs: bool = Field(True, description="Save animated GIFs of the videos.")

    @field_validator("model_width")
    @classmethod
    def _width(cls, v: int) -> int:
        if v % 8:
            raise ValueError("model_width must be a multiple of 8 (group norm)")
        return v

    @field_validator("budgets", "lookahead_values", "steps_values")
    @classmethod
    def _positive(cls, v: list[int]) -> list[int]:
        if any(x < 1 for x in v):
            raise ValueError("values must be >= 1")
        return sorted(set(v))


def _ci95(values) -> float:
    a = np.asarray(values, dtype=float)
    if len(a) < 2:
        return 0.0
    return float(1.96 * a.std(ddof=1) / math.sqrt(len(a)))


@register_benchmark
class VideoDlbsBenchmark(Benchmark):
    name = "video-dlbs"
    title = "DLBS: inference-time search for text-to-video diffusion at equal NFE"
    description = __doc__ or ""
    paper = DLBS_PAPER
    Config = VideoDlbsConfig
    datasets = (
        DatasetSpec(
            "moving-shapes",
            "generator",
            "Generated 8-frame 32x32 videos of a coloured shape moving as the prompt says.",
        ),
    )
    metrics = (
        MetricSpec(
            "calibrated_reward",
            "max",
            primary=True,
            description="Calibrated reward of the chosen video (standardised metric mix), at the last x.",
        ),
        MetricSpec(
            "uncalibrated_reward",
            "max",
            description="Equal-weight mix of the standardised metrics.",
        ),
        MetricSpec(
            "oracle_score",
            "max",
            description="Held-out ground-truth match to the prompt's rendering.",
        ),
        MetricSpec(
            "text_accuracy",
            "max",
            description="Share of videos whose four attributes the classifier gets right.",
        ),
        *(MetricSpec(m, "max", description=f"Raw {m.replace('_', ' ')}.") for m in METRICS),
        MetricSpec("nfe", "min", description="Model evaluations spent per video."),
        MetricSpec(
            "reward_mean_over_x",
            "max",
            description="Calibrated reward averaged over the experiment's points.",
        ),
        MetricSpec(
            "calibrated_pair_accuracy",
            "max",
            description="Held-out judgement agreement of the calibrated reward.",
        ),
        MetricSpec(
            "uncalibrated_pair_accuracy",
            "max",
            description="Held-out judgement agreement of the equal mix.",
        ),
        MetricSpec(
            "seconds_per_video", "min", "s", description="Wall time of the method per video."
        ),
    )

    def run(self, ctx: RunContext, method: Method) -> None:
        if not isinstance(method, VideoSearchMethod):
            raise TypeError(f"method {method.name!r} does not implement VideoSearchMethod.sample")
        cfg: VideoDlbsConfig = self.config  # type: ignore[assignment]
        if cfg.experiment == "lookahead" and not method.uses_lookahead:
            raise ValueError(
                f"the lookahead experiment needs a method with lookahead, not {method.name!r}"
            )
        torch.manual_seed(ctx.seed)
        ctx.progress(0, 100, "model")
        mcfg = VideoModelConfig(ae_steps=cfg.ae_steps, steps=cfg.model_steps, width=cfg.model_width)
        model, record = get_or_train(
            mcfg, ctx, progress=lambda d, t: ctx.progress(10 * d / t, 100, "training model")
        )
        ctx.record_dataset("moving-shapes", mcfg.cache_key(), "generator (model config hash)")
        ctx.log(
            f"model {mcfg.cache_key()}: eps loss {record['eps_loss_final']:.4f}, "
            f"autoencoder L1 {record['ae_recon_l1']:.4f}"
        )
        ctx.progress(10, 100, "reward networks")
        jcfg = JudgeConfig(mcfg.frames, mcfg.size, cfg.judge_steps)
        frame_net, clf, jrec = get_or_train_judges(jcfg, ctx.data_path(JUDGE_CACHE), ctx.log)
        rewards = VideoRewards(frame_net, clf, mcfg.spec)
        ctx.progress(15, 100, "calibration")
        cal = self._calibration(ctx, cfg, model, rewards, mcfg, jcfg)
        ctx.save_artifact("calibration.json", cal.as_dict())

        rng = np.random.default_rng(ctx.seed)
        prompt_idx = rng.choice(len(ALL_PROMPTS), size=cfg.n_prompts, replace=False)
        prompts = ALL_PROMPTS[torch.as_tensor(prompt_idx)]
        ctx.log("prompts: " + "; ".join(prompt_text(p) for p in prompts))

        samplers: dict[str, VideoSearchMethod] = {method.name: method}
        for ref in cfg.reference_samplers:
            if ref != method.name and ref not in samplers:
                cls = get_method(ref)
                if cfg.experiment == "lookahead" and not getattr(cls, "uses_lookahead", False):
                    continue
                samplers[ref] = cls()  # type: ignore[assignment]
        if cfg.experiment == "budget":
            xs, x_title = cfg.budgets, "KB (NFE budget = KB x steps)"
        elif cfg.experiment == "lookahead":
            xs, x_title = cfg.lookahead_values, "lookahead steps T'"
        else:
            xs, x_title = cfg.steps_values, "denoising steps"

        results: dict[str, dict[int, list[dict]]] = {n: {x: [] for x in xs} for n in samplers}
        final_videos: dict[str, list[torch.Tensor]] = {n: [] for n in samplers}
        total = len(xs) * len(samplers) * len(prompts)
        done = 0
        method_seconds = []
        for x in xs:
            steps, budget, la = self._point(cfg, x)
            for name, sampler in samplers.items():
                for p, attrs in enumerate(prompts):
                    ctx.check_cancelled()
                    scorer = self._scorer(model, rewards, cal, attrs)
                    gen = torch.Generator().manual_seed(_seed(ctx.seed, int(prompt_idx[p]), x))
                    t0 = time.perf_counter()
                    counted = CountedModel(model)
                    res = sampler.sample(
                        counted,
                        attrs,
                        scorer,
                        steps=steps,
                        budget=budget,
                        generator=gen,
                        lookahead=la,
                    )
                    if res.nfe != counted.nfe:
                        raise RuntimeError(f"{name} reported {res.nfe} NFE but spent {counted.nfe}")
                    if name == method.name:
                        method_seconds.append(time.perf_counter() - t0)
                    video = model.decode(res.latent)
                    row = self._score_video(video, attrs, rewards, cal)
                    row.update(
                        {
                            "nfe": res.nfe,
                            "budget": budget,
                            "prompt": prompt_text(attrs),
                            "sampler": name,
                            "x": x,
                        }
                    )
                    results[name][x].append(row)
                    if x == xs[-1]:
                        final_videos[name].append(video)
                    done += 1
                    ctx.progress(20 + 78 * done / total, 100, f"{name} at {x}")
            mine = results[method.name][x]
            ctx.log_metrics(
                x,
                **{
                    k: float(np.mean([r[k] for r in mine]))
                    for k in ("calibrated_reward", "oracle_score", "text_accuracy", "nfe")
                },
            )
            ctx.log(
                f"x={x}: "
                + ", ".join(
                    f"{n} {np.mean([r['calibrated_reward'] for r in results[n][x]]):+.3f}"
                    for n in samplers
                )
            )

        last = results[method.name][xs[-1]]
        keys = (
            "calibrated_reward",
            "uncalibrated_reward",
            "oracle_score",
            "text_accuracy",
            *METRICS,
            "nfe",
        )
        summary = {k: float(np.mean([r[k] for r in last])) for k in keys}
        summary["reward_mean_over_x"] = float(
            np.mean(
                [np.mean([r["calibrated_reward"] for r in results[method.name][x]]) for x in xs]
            )
        )
        summary["calibrated_pair_accuracy"] = float(cal.report["calibrated"]["pair_accuracy"])
        summary["uncalibrated_pair_accuracy"] = float(cal.report["uncalibrated"]["pair_accuracy"])
        summary["seconds_per_video"] = float(np.mean(method_seconds)) if method_seconds else 0.0
        ctx.log_summary(**summary)

        for metric, title in (
            ("calibrated_reward", "Calibrated reward"),
            ("oracle_score", "Oracle score"),
            ("nfe", "NFE per video"),
        ):
            curves = {
                n: {
                    "x": list(xs),
                    "mean": [float(np.mean([r[metric] for r in results[n][x]])) for x in xs],
                    "ci": [_ci95([r[metric] for r in results[n][x]]) for x in xs],
                }
                for n in samplers
            }
            ctx.save_artifact(
                f"{metric}_vs_{cfg.experiment}.plotly.json",
                curves_figure(curves, x_title, title, f"{title} vs {x_title}"),
            )
        ctx.save_artifact("videos.json", [r for n in samplers for x in xs for r in results[n][x]])
        if cfg.gifs:
            self._save_gifs(ctx, final_videos, prompts)
        ctx.progress(100, 100, "done")

    # -- pieces ---------------------------------------------------------------------------------
    @staticmethod
    def _point(cfg: VideoDlbsConfig, x: int) -> tuple[int, int, int | None]:
        """(denoising steps, NFE budget, lookahead override) of experiment point x."""
        if cfg.experiment == "budget":
            return cfg.denoising_steps, x * cfg.denoising_steps, None
        if cfg.experiment == "lookahead":
            return cfg.denoising_steps, cfg.lookahead_kb * cfg.denoising_steps, x
        return x, max(cfg.steps_nfe, x), None

    @staticmethod
    def _scorer(model, rewards: VideoRewards, cal: Calibration, attrs: torch.Tensor) -> Scorer:
        def score(z: torch.Tensor) -> torch.Tensor:
            out = []
            for chunk in z.split(64):
                video = model.decode(chunk)
                out.append(cal.reward(rewards.metrics(video, attrs)))
            return torch.cat(out)

        return score

    @staticmethod
    def _score_video(video: torch.Tensor, attrs, rewards: VideoRewards, cal: Calibration) -> dict:
        m = rewards.metrics(video, attrs)
        row = {k: float(v[0]) for k, v in m.items()}
        row["calibrated_reward"] = float(cal.reward(m)[0])
        row["uncalibrated_reward"] = float(cal.uncalibrated(m)[0])
        row["oracle_score"] = float(rewards.oracle(video, attrs)[0])
        return row

    def _calibration(
        self,
        ctx: RunContext,
        cfg: VideoDlbsConfig,
        model,
        rewards: VideoRewards,
        mcfg: VideoModelConfig,
        jcfg: JudgeConfig,
    ) -> Calibration:
        if cfg.judgements_file:
            path = Path(cfg.judgements_file)
            X, ia, ib, pref, scores = load_judgements(path, METRICS)
            cal = calibrate(X, METRICS, ia, ib, pref, scores)
            cal.report["source"] = f"judgement file {path.name}"
            self._log_calibration(ctx, cal)
            return cal
        key = hashlib.sha256(
            json.dumps(
                {
                    "format": 1,
                    "model": mcfg.cache_key(),
                    "judges": jcfg.cache_key(),
                    "prompts": cfg.calibration_prompts,
                    "per_prompt": cfg.calibration_per_prompt,
                    "temperature": cfg.judgement_temperature,
                    "steps": cfg.denoising_steps,
                },
                sort_keys=True,
            ).encode()
        ).hexdigest()[:16]
        path = ctx.data_path(CALIBRATION_CACHE) / f"{key}.json"
        if path.is_file():
            cal = Calibration.from_dict(json.loads(path.read_text()))
            ctx.log(f"reusing cached calibration {path}")
        else:
            cal = self._calibrate_synthetic(cfg, model, rewards)
            tmp = path.with_suffix(".part")
            tmp.write_text(json.dumps(cal.as_dict()))
            tmp.replace(path)
        self._log_calibration(ctx, cal)
        return cal

    @staticmethod
    def _calibrate_synthetic(cfg: VideoDlbsConfig, model, rewards: VideoRewards) -> Calibration:
        """A pool of the model's own videos (stochastic and deterministic DDIM, few and many
        steps, for a spread of quality), scored by the ground-truth oracle; judgements are
        Bradley-Terry draws on oracle differences between videos of the same prompt."""
        gen = torch.Generator().manual_seed(20250131)
        rng = np.random.default_rng(20250131)
        idx = rng.choice(len(ALL_PROMPTS), size=cfg.calibration_prompts, replace=False)
        rows, groups, scores = [], [], []
        settings = [
            (0.0, cfg.denoising_steps),
            (1.0, cfg.denoising_steps),
            (1.0, max(2, cfg.denoising_steps // 3)),
        ]
        for g, i in enumerate(idx):
            attrs = ALL_PROMPTS[int(i)]
            for k in range(cfg.calibration_per_prompt):
                eta, steps = settings[k % len(settings)]
                z, _ = ddim(model, attrs, steps, gen, eta=eta)
                video = model.decode(z)
                m = rewards.metrics(video, attrs)
                rows.append([float(m[name][0]) for name in METRICS])
                groups.append(g)
                scores.append(float(rewards.oracle(video, attrs)[0]))
        X, groups_a, scores_a = np.array(rows), np.array(groups), np.array(scores)
        ia, ib, pref = pairs_from_groups(groups_a, scores_a, rng, cfg.judgement_temperature)
        cal = calibrate(X, METRICS, ia, ib, pref, scores_a)
        cal.report["source"] = (
            f"synthetic judgements: {len(scores)} model videos, oracle score, "
            f"Bradley-Terry temperature {cfg.judgement_temperature}"
        )
        return cal

    @staticmethod
    def _log_calibration(ctx: RunContext, cal: Calibration) -> None:
        rep = cal.report
        ctx.log(
            f"calibration ({rep.get('source', '')}): "
            + ", ".join(
                f"{m} w={e['weight']:+.2f} acc={e['pair_accuracy']:.2f}"
                + (f" rho={e['spearman']:+.2f}" if "spearman" in e else "")
                for m, e in rep["per_metric"].items()
            )
        )
        ctx.log(
            f"pairwise agreement on held-out judgements: uncalibrated "
            f"{rep['uncalibrated']['pair_accuracy']:.3f}, calibrated {rep['calibrated']['pair_accuracy']:.3f}"
        )

    @staticmethod
    def _save_gifs(ctx: RunContext, final: dict[str, list[torch.Tensor]], prompts) -> None:
        out = ctx.scratch_dir()
        names = list(final)
        cols = [torch.cat(final[n]) for n in names]
        for n, col in zip(names, cols, strict=True):
            path = save_gif(video_grid([col]), out / f"{n}.gif", header=[n])
            ctx.save_artifact(f"videos/{n}.gif", path)
        path = save_gif(video_grid(cols), out / "side_by_side.gif", header=names)
        ctx.save_artifact("videos/side_by_side.gif", path)
        ctx.save_artifact("videos/prompts.json", [prompt_text(p) for p in prompts])


def _seed(seed: int, prompt: int, x: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{prompt}:{x}".encode()).digest()[:7], "big")


__all__ = ["VideoDlbsBenchmark", "VideoDlbsConfig", "VideoSearchMethod"]
