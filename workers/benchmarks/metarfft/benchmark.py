"""`metarfft_lengthgen`: cross-task length generalisation (Hu et al. 2025, Meta-RFFT).

Protocol (paper Sec. 3-4, scaled to a CPU):
1. pre-train a small char-level Llama from scratch (default), or fine-tune a Hugging Face causal
   LM (`model_path`, or the run's model `ctx.model`; GPU workers), on many tasks at short lengths
   (train_min_length..train_max_length) in the method's format (Meta-RFFT: rule + trace;
   baseline: task name + direct answer);
2. adapt to each held-out task, unseen in step 1, either by fine-tuning on `adapt_examples`
   short examples ("finetune") or with one solved example in the prompt ("icl");
3. evaluate greedy answers at every length up to eval_max_length (longer than trained):
   accuracy per length (the length-generalisation curve) per held-out task and averaged.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import plotly.graph_objects as go
from pydantic import Field

from workers.benchmarks.metarfft.task import Task, all_tasks
from workers.benchmarks.watermark.lm import single_thread_on_cpu
from workers.core import Benchmark, MetricSpec, PluginConfig, RunContext, register_benchmark
from workers.methods.metarfft.hf import HFCausalLM, from_context_model
from workers.methods.metarfft.lm import CharLM, CharVocab, build_model
from workers.methods.metarfft.paper import META_RFFT

DEFAULT_HELD_OUT = ("sub", "caesar", "bit_xor", "count_greater")


class MetaRFFTBenchConfig(PluginConfig):
    held_out_tasks: tuple[str, ...] = Field(
        DEFAULT_HELD_OUT, description="tasks never seen in pre-training"
    )
    train_tasks: tuple[str, ...] = Field((), description="pre-training tasks (empty: all others)")
    train_min_length: int = Field(1, ge=1, le=50, description="shortest pre-training length")
    train_max_length: int = Field(
        4, ge=1, le=50, description="longest pre-training / adaptation length"
    )
    eval_max_length: int = Field(6, ge=1, le=100, description="evaluate lengths 1..eval_max_length")
    eval_per_length: int = Field(3, ge=1, le=500, description="test instances per (task, length)")
    pretrain_steps: int = Field(150, ge=0, le=200000, description="pre-training optimiser steps")
    batch_size: int = Field(16, ge=1, le=1024, description="sequences per step")
    lr: float = Field(3e-3, gt=0, le=1.0, description="AdamW learning rate (cosine decay)")
    adaptation: Literal["finetune", "icl"] = Field(
        "finetune", description="few-shot fine-tuning or one in-context example"
    )
    adapt_examples: int = Field(
        16, ge=1, le=10000, description="fine-tuning examples per held-out task"
    )
    adapt_steps: int = Field(30, ge=0, le=10000, description="fine-tuning steps per held-out task")
    hidden: int = Field(64, ge=16, le=2048, description="char-level model width")
    layers: int = Field(2, ge=1, le=48, description="char-level model transformer layers")
    model_path: str = Field(
        "",
        max_length=1000,
        description="local Hugging Face causal LM directory to fine-tune instead of the "
        "char-level model (never downloaded); empty: the run's model if it has one, else "
        "the char-level model",
    )
    model_dtype: Literal["float32", "bfloat16", "auto"] = Field(
        "float32", description="weights dtype when loading model_path (auto: as stored)"
    )
    model_lr: float = Field(
        2e-5, gt=0, le=1.0, description="AdamW learning rate for a Hugging Face model"
    )

    def model_post_init(self, __context: Any) -> None:
        known = all_tasks()
        for name in (*self.held_out_tasks, *self.train_tasks):
            if name not in known:
                raise ValueError(f"unknown task {name!r}; known: {sorted(known)}")
        if not self.held_out_tasks:
            raise ValueError("held_out_tasks must name at least one task")
        if set(self.held_out_tasks) & set(self.train_tasks):
            raise ValueError("train_tasks and held_out_tasks overlap")
        if self.train_min_length > self.train_max_length:
            raise ValueError("train_min_length must be <= train_max_length")
        if self.eval_max_length < self.train_max_length:
            raise ValueError("eval_max_length must be >= train_max_length")


@register_benchmark
class MetaRFFTBenchmark(Benchmark):
    name = "metarfft_lengthgen"
    title = "Meta-RFFT: cross-task length generalisation"
    description = (
        "Pre-train on many rule-following tasks at short lengths, adapt to unseen tasks with few "
        "examples, measure accuracy at longer lengths."
    )
    paper = META_RFFT
    Config = MetaRFFTBenchConfig
    metrics = (
        MetricSpec(
            "heldout_acc",
            "max",
            primary=True,
            description="accuracy on held-out tasks, all eval lengths",
        ),
        MetricSpec(
            "heldout_acc_long", "max", description="held-out accuracy at lengths > train_max_length"
        ),
        MetricSpec("heldout_acc_short", "max", description="held-out accuracy at trained lengths"),
        MetricSpec("pretrain_loss", "min", description="final pre-training loss (target tokens)"),
    )

    def run(self, ctx: RunContext, method: Any) -> None:
        with single_thread_on_cpu(ctx.device):
            self._run(ctx, method)

    def _run(self, ctx: RunContext, method: Any) -> None:
        cfg = self.config
        fmt = method.example_format()
        tasks = all_tasks()
        held = [tasks[n] for n in cfg.held_out_tasks]
        train = [
            tasks[n] for n in (cfg.train_tasks or sorted(set(tasks) - set(cfg.held_out_tasks)))
        ]
        rng = np.random.default_rng(ctx.seed)
        lm, lr = self._language_model(ctx)
        lengths = range(cfg.train_min_length, cfg.train_max_length + 1)
        total = cfg.pretrain_steps + len(held) * (cfg.adapt_steps + 1)
        ctx.progress(0, total, "pre-training")
        losses: list[float] = []

        def pairs(task_pool: list[Task]):
            def sample(r: np.random.Generator, k: int) -> list[tuple[str, str]]:
                out = []
                for _ in range(k):
                    t = task_pool[int(r.integers(len(task_pool)))]
                    x = t.instance(int(r.choice(list(lengths))), r)
                    out.append((fmt.prompt(t, x), fmt.target(t, x)))
                return out

            return sample

        def on_pre(step: int, loss: float) -> None:
            losses.append(loss)
            if step % 10 == 0 or step == cfg.pretrain_steps - 1:
                ctx.log_metrics(step, pretrain_loss=loss)
                ctx.progress(step + 1, total, "pre-training")
                ctx.check_cancelled()

        initial = lm.snapshot()
        lm.train(
            pairs(train),
            steps=cfg.pretrain_steps,
            batch=cfg.batch_size,
            lr=lr,
            rng=rng,
            on_step=on_pre,
        )
        pretrained = lm.snapshot()  # every held-out task is adapted from these weights
        ctx.log(f"pre-training moved the weights by {_relative_change(initial, pretrained):.3g}")
        done = cfg.pretrain_steps
        curves: dict[str, list[float]] = {}
        for task in held:
            demo = None
            if cfg.adaptation == "finetune":
                shots = pairs([task])(rng, cfg.adapt_examples)  # the few examples, fixed
                lm.train(
                    lambda r, k, shots=shots: [shots[i] for i in r.integers(0, len(shots), size=k)],
                    steps=cfg.adapt_steps,
                    batch=min(cfg.batch_size, len(shots)),
                    lr=lr / 3,
                    rng=rng,
                )
            else:
                demo = task.instance(cfg.train_max_length, rng)
            done += cfg.adapt_steps
            curves[task.name] = self._evaluate(lm, fmt, task, demo, rng)
            if cfg.adaptation == "finetune":
                lm.restore(pretrained)
            done += 1
            ctx.progress(min(done, total), total, f"evaluated {task.name}")
            ctx.check_cancelled()
        self._report(ctx, method, curves, losses)

    def _language_model(self, ctx: RunContext) -> tuple[CharLM | HFCausalLM, float]:
        """The model to train and its learning rate: `model_path`, else the run's model, else
        the char-level Llama from scratch."""
        cfg = self.config
        if cfg.model_path:
            lm = HFCausalLM.from_pretrained(
                cfg.model_path, device=ctx.device, dtype=cfg.model_dtype
            )
            source = cfg.model_path
        else:
            lm = from_context_model(ctx.model)
            source = type(getattr(ctx.model, "model", None)).__name__
        if lm is not None:
            params = sum(p.numel() for p in lm.model.parameters())
            ctx.log(f"fine-tuning Hugging Face model {source} ({params} parameters) on {lm.device}")
            return lm, cfg.model_lr
        model = build_model(CharVocab(), cfg.hidden, cfg.layers, seed=ctx.seed).to(ctx.device)
        return CharLM(model), cfg.lr

    def _evaluate(
        self,
        lm: CharLM | HFCausalLM,
        fmt: Any,
        task: Task,
        demo: dict | None,
        rng: np.random.Generator,
    ) -> list[float]:
        cfg = self.config
        accs = []
        for n in range(1, cfg.eval_max_length + 1):
            if n < task.min_length:
                accs.append(float("nan"))
                continue
            xs = [task.instance(n, rng) for _ in range(cfg.eval_per_length)]
            prompts = [
                fmt.one_shot_prompt(task, demo, x) if demo is not None else fmt.prompt(task, x)
                for x in xs
            ]
            max_new = max(lm.n_tokens(fmt.target(task, x)) for x in xs) + 8
            outs = lm.complete(prompts, max_new)
            accs.append(float(np.mean([task.check(x, o) for x, o in zip(xs, outs, strict=False)])))
        return accs

    def _report(
        self, ctx: RunContext, method: Any, curves: dict[str, list[float]], losses: list[float]
    ) -> None:
        cfg = self.config
        L = np.arange(1, cfg.eval_max_length + 1)
        mat = np.array(list(curves.values()))
        mean_curve = np.nanmean(mat, axis=0)
        for i, n in enumerate(L):
            ctx.log_metrics(
                int(n),
                heldout_acc_at_length=float(mean_curve[i]),
                **{f"acc_{t}": float(c[i]) for t, c in curves.items() if not np.isnan(c[i])},
            )
        long = L > cfg.train_max_length
        summary = {
            "heldout_acc": float(np.nanmean(mat)),
            "heldout_acc_long": float(np.nanmean(mat[:, long])) if long.any() else float("nan"),
            "heldout_acc_short": float(np.nanmean(mat[:, ~long])),
            "pretrain_loss": float(np.mean(losses[-10:])) if losses else float("nan"),
        }
        summary.update({f"acc_{t}": float(np.nanmean(c)) for t, c in curves.items()})
        ctx.log_summary(**summary)
        fig = go.Figure()
        for t, c in curves.items():
            fig.add_trace(go.Scatter(x=L, y=c, mode="lines+markers", name=t))
        fig.add_trace(
            go.Scatter(x=L, y=mean_curve, mode="lines", name="mean (held-out)", line={"width": 4})
        )
        fig.add_vline(x=cfg.train_max_length + 0.5, line_dash="dash")
        fig.update_layout(
            title=f"{method.name}: accuracy vs length on unseen tasks ({cfg.adaptation})",
            xaxis_title="length",
            yaxis_title="accuracy",
            yaxis_range=[0, 1.02],
        )
        ctx.save_artifact("length_generalization", fig)
        ctx.save_artifact("accuracy_table", {"lengths": L.tolist(), "curves": curves})


def _relative_change(before: dict, after: dict) -> float:
    """||after - before|| / ||before|| over all floating-point weights."""
    num = den = 0.0
    for k, v in before.items():
        if v.is_floating_point():
            num += float((after[k].double() - v.double()).pow(2).sum())
            den += float(v.double().pow(2).sum())
    return float(np.sqrt(num / den)) if den > 0 else float("nan")
