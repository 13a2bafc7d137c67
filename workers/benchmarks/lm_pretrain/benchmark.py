"""Benchmark `lm_pretrain`: pre-train the project's small Llama with a method's optimizer.

The benchmark owns the corpus, tokenizer, model shape, batch sampling and schedule (linear
warmup + cosine, gradient clipping at 1.0); the method only supplies
`build_optimizer(model) -> torch.optim.Optimizer`. So every optimizer sees the same tokens in
the same order for a given seed. Reports loss curves against tokens, held-out perplexity,
optimizer-state memory and step time, optionally the tokens needed to reach a target
validation loss (set it to Adam's final loss to reproduce the SinkGD paper's comparison), and
stores the trained model in Hugging Face format as a zip artifact.
"""

from __future__ import annotations

import io
import math
import zipfile
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from workers.core import (
    Benchmark,
    DatasetSpec,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)
from workers.methods.sinkgd.plugin import SINKGD_PAPER


class PretrainConfig(PluginConfig):
    corpus: str = Field(
        "stdlib",
        pattern="^(stdlib|stdlib_docstrings|files)$",
        description="Offline corpus: Python stdlib source, its docstrings, or your files",
    )
    corpus_files: str = Field(
        "",
        max_length=5000,
        description="corpus=files: comma-separated .txt or .jsonl ('text' field) paths on the worker",
    )
    max_chars: int = Field(
        1_000_000, ge=20_000, le=500_000_000, description="Corpus size in characters"
    )
    vocab_size: int = Field(2048, ge=260, le=65536, description="BPE vocabulary size")
    hidden_size: int = Field(128, ge=16, le=4096, description="Model width")
    num_layers: int = Field(4, ge=1, le=64, description="Decoder layers")
    num_heads: int = Field(4, ge=1, le=64, description="Attention heads")
    intermediate_size: int = Field(344, ge=16, le=16384, description="SwiGLU width")
    seq_len: int = Field(128, ge=8, le=4096, description="Context length")
    batch_size: int = Field(16, ge=1, le=1024, description="Sequences per step")
    steps: int = Field(150, ge=2, le=1_000_000, description="Optimizer steps")
    warmup: int = Field(15, ge=0, le=100_000, description="Warmup steps")
    eval_points: int = Field(
        10, ge=1, le=1000, description="Validation evaluations during training"
    )
    eval_windows: int = Field(16, ge=1, le=10_000, description="Held-out windows per evaluation")
    target_val_nll: float = Field(
        0.0, ge=0, le=20, description="Report tokens to reach this validation NLL (0 = off)"
    )
    save_model: bool = Field(
        True, description="Store the trained model (HF format, zipped) as an artifact"
    )


def tokens_to_target(history: list[dict], target: float) -> float:
    """Tokens at which validation NLL first reaches `target`, interpolated linearly between evaluations."""
    evals = [(r["tokens"], r["val_nll"]) for r in history if "val_nll" in r]
    prev = None
    for tok, nll in evals:
        if nll <= target:
            if prev is None or prev[1] == nll:
                return tok
            (t0, n0), (t1, n1) = prev, (tok, nll)
            return t0 + (n0 - target) / (n0 - n1) * (t1 - t0)
        prev = (tok, nll)
    return math.nan


def _zip_dir(path: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(path.rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(path))
    return buf.getvalue()


@register_benchmark
class LMPretrain(Benchmark):
    name = "lm_pretrain"
    title = "Pre-train a small Llama on offline text"
    description = __doc__
    paper = SINKGD_PAPER
    Config = PretrainConfig
    metrics: ClassVar = (
        MetricSpec(
            "val_ppl",
            "min",
            "",
            primary=True,
            description="Held-out perplexity at the end of training",
        ),
        MetricSpec("val_nll", "min", "nats", description="Held-out next-token NLL"),
        MetricSpec("train_loss", "min", "nats", description="Last training batch loss"),
        MetricSpec(
            "tokens_to_target",
            "min",
            "tokens",
            description="Tokens until val NLL <= target_val_nll",
        ),
        MetricSpec("opt_state_bytes", "min", "B", description="Optimizer state memory"),
        MetricSpec("step_time_ms", "min", "ms", description="Mean time of one training step"),
    )
    datasets: ClassVar = (
        DatasetSpec(
            "python-stdlib",
            "bundled",
            "The Python standard library's source code",
            license="PSF-2.0",
        ),
    )

    def run(self, ctx: RunContext, method) -> None:
        from workers.models.tiny_llama import TinyLlamaConfig, train_tiny_llama

        if not hasattr(method, "build_optimizer"):
            raise TypeError(f"method {method.name!r} does not provide build_optimizer(model)")
        c = self.config
        files = tuple(p.strip() for p in c.corpus_files.split(",") if p.strip())
        if c.corpus == "files" and not files:
            raise ValueError("corpus_files: corpus=files needs at least one path")
        cfg = TinyLlamaConfig(
            corpus=c.corpus,
            files=files,
            max_chars=c.max_chars,
            vocab_size=c.vocab_size,
            hidden_size=c.hidden_size,
            num_layers=c.num_layers,
            num_heads=c.num_heads,
            intermediate_size=c.intermediate_size,
            seq_len=c.seq_len,
            batch_size=c.batch_size,
            steps=c.steps,
            warmup=c.warmup,
            seed=ctx.seed,
        )
        out = ctx.scratch_dir() / "model"
        record = train_tiny_llama(
            cfg,
            out,
            ctx,
            optimizer_factory=lambda model, _lr: method.build_optimizer(model),
            eval_every=max(1, c.steps // c.eval_points),
            eval_windows=c.eval_windows,
        )
        hist = record["history"]
        summary = {
            "val_nll": record["final_val_nll"],
            "val_ppl": record["final_val_ppl"],
            "train_loss": hist[-1]["train_loss"],
            "opt_state_bytes": float(record["optimizer_state_bytes"]),
            "step_time_ms": 1000 * record["mean_step_s"],
            "tokens_seen": float(record["tokens_seen"]),
            "parameters": float(record["parameters"]),
            "diverged": float(record["diverged"]),
        }
        if c.target_val_nll > 0:
            summary["tokens_to_target"] = tokens_to_target(hist, c.target_val_nll)
        ctx.log_summary(**summary)
        ctx.save_artifact("loss_curve", _figure(hist, method.name))
        if c.save_model and not record["diverged"]:
            ctx.save_artifact("model.zip", _zip_dir(out))


def _figure(history: list[dict], name: str):
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[r["tokens"] for r in history],
            y=[r["train_loss"] for r in history],
            name="train loss",
        )
    )
    ev = [r for r in history if "val_nll" in r]
    fig.add_trace(
        go.Scatter(
            x=[r["tokens"] for r in ev],
            y=[r["val_nll"] for r in ev],
            name="val NLL",
            mode="lines+markers",
        )
    )
    fig.update_layout(
        title=f"{name}: loss vs tokens", xaxis_title="tokens", yaxis_title="nats / token"
    )
    return fig
