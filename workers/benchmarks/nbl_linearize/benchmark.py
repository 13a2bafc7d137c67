"""Benchmark `nbl_linearize`: replace k attention blocks of a Llama-family model and measure the cost.

Protocol (after Erdogan et al. 2025, Sec. 4): calibrate on training-text windows, score every
attention block (CCA bound, MSE bound, LLM-Drop cosine), let the method choose k blocks and the
benchmark replace them (linear NBL map or drop); for every k measure held-out perplexity,
multiple-choice accuracy (lm-eval-harness style log-likelihood scoring on generated tasks),
prefill / decode throughput and KV-cache bytes, all as ratios to the unmodified model measured in
the same run. Also: Spearman rank correlation between each block's CCA bound and the loss
increase when only that block is linearised.
"""

from __future__ import annotations

import copy
import math
from typing import ClassVar

import torch
from pydantic import Field

from workers.core import (
    Benchmark,
    DatasetSpec,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)
from workers.methods.nbl.calibrate import collect_layer_stats, layer_scores
from workers.methods.nbl.modules import drop_attention_layers, linearize_layers
from workers.methods.nbl.plugin import NBL_PAPER
from workers.methods.nbl.speed import compare_generation


class NBLConfig(PluginConfig):
    model_path: str = Field(
        "",
        max_length=1000,
        description="Local Hugging Face Llama-family directory; empty = the project's tiny Llama",
    )
    tiny_layers: int = Field(6, ge=2, le=48, description="Tiny Llama: decoder layers")
    tiny_hidden: int = Field(96, ge=16, le=2048, description="Tiny Llama: width (heads of 32 dims)")
    tiny_steps: int = Field(
        300, ge=10, le=100_000, description="Tiny Llama: training steps (cached by config)"
    )
    tiny_vocab: int = Field(2048, ge=260, le=65536, description="Tiny Llama: BPE vocabulary size")
    tiny_max_chars: int = Field(
        1_000_000, ge=20_000, le=100_000_000, description="Tiny Llama: corpus characters"
    )
    seq_len: int = Field(
        128, ge=16, le=8192, description="Window length for calibration and evaluation"
    )
    calib_windows: int = Field(
        48, ge=2, le=100_000, description="Calibration windows (tokens = windows x seq_len)"
    )
    eval_windows: int = Field(24, ge=1, le=100_000, description="Held-out windows for perplexity")
    k_values: tuple[int, ...] = Field(
        (), max_length=64, description="Numbers of blocks to replace; empty = 0..L"
    )
    k_summary: int = Field(
        -1, ge=-1, le=128, description="k reported on the leaderboard; -1 = L // 2"
    )
    mc_items: int = Field(
        20, ge=0, le=10_000, description="Items per generated multiple-choice task (0 = skip)"
    )
    task_files: str = Field(
        "",
        max_length=5000,
        description="Comma-separated JSONL multiple-choice files on the worker "
        '({"context", "choices", "gold"} per line), each one more task',
    )
    ridge: float = Field(
        1e-6, ge=0, le=1.0, description="Relative ridge added to C_XX in the LMMSE solve"
    )
    prompt_len: int = Field(128, ge=1, le=32_768, description="Prefill length for throughput")
    decode_tokens: int = Field(32, ge=1, le=4096, description="Decode steps for throughput")
    speed_batch: int = Field(1, ge=1, le=256, description="Batch size for throughput")
    speed_repeats: int = Field(3, ge=1, le=50, description="Timed repeats (median) for throughput")
    layer_sensitivity: bool = Field(
        True, description="Also linearise each block alone (Spearman of bound vs loss)"
    )


def _spearman(a: list[float], b: list[float]) -> float:
    from scipy.stats import spearmanr

    if len(a) < 3:
        return math.nan
    return float(spearmanr(a, b).statistic)


@register_benchmark
class NBLLinearize(Benchmark):
    name = "nbl_linearize"
    title = "Neural Block Linearization: attention blocks replaced by linear maps"
    description = __doc__
    paper = NBL_PAPER
    Config = NBLConfig
    metrics: ClassVar = (
        MetricSpec(
            "ppl_at_k",
            "min",
            "",
            primary=True,
            description="Held-out perplexity with k blocks replaced",
        ),
        MetricSpec(
            "ppl_increase_pct",
            "min",
            "%",
            description="Perplexity increase over the original model",
        ),
        MetricSpec(
            "mc_acc_at_k",
            "max",
            "",
            description="Mean multiple-choice accuracy with k blocks replaced",
        ),
        MetricSpec("mc_acc_drop", "min", "", description="Original MC accuracy minus that at k"),
        MetricSpec(
            "prefill_speedup", "max", "x", description="Prefill tokens/s relative to the original"
        ),
        MetricSpec(
            "decode_speedup", "max", "x", description="Decode tokens/s relative to the original"
        ),
        MetricSpec(
            "kv_cache_ratio", "min", "x", description="KV-cache bytes relative to the original"
        ),
        MetricSpec(
            "spearman_bound_loss",
            "max",
            "",
            description="Spearman rank correlation of per-block CCA bound and single-block loss increase",
        ),
    )
    datasets: ClassVar = (
        DatasetSpec(
            "python-stdlib",
            "bundled",
            "The Python standard library's source code (ships with every Python)",
            license="PSF-2.0",
        ),
    )

    def _load(self, ctx: RunContext):
        from workers.models.tiny_llama import (
            TinyLlamaConfig,
            get_or_train_tiny_llama,
            load_tiny_llama,
        )

        c = self.config
        if c.model_path:
            path, corpus_cfg = c.model_path, TinyLlamaConfig(max_chars=c.tiny_max_chars)
        else:
            corpus_cfg = TinyLlamaConfig(
                num_layers=c.tiny_layers,
                hidden_size=c.tiny_hidden,
                num_heads=max(1, c.tiny_hidden // 32),
                intermediate_size=(c.tiny_hidden * 8 // 3 + 7) // 8 * 8,
                steps=c.tiny_steps,
                max_chars=c.tiny_max_chars,
                vocab_size=c.tiny_vocab,
                seq_len=c.seq_len,
                seed=ctx.seed,
            )
            path = get_or_train_tiny_llama(corpus_cfg, ctx)
        model, tok = load_tiny_llama(path, ctx.device, dtype="auto" if c.model_path else "float32")
        return model, tok, corpus_cfg

    def run(self, ctx: RunContext, method) -> None:
        from workers.models.lm.corpus import build_corpus
        from workers.models.lm.data import encode_documents, random_windows
        from workers.models.lm.evaluate import score_multiple_choice, stream_nll
        from workers.models.lm.tasks import TASKS, generate_task, load_task_files, parse_paths

        c = self.config
        model, tok, corpus_cfg = self._load(ctx)
        L = model.config.num_hidden_layers
        ks = sorted(set(c.k_values)) if c.k_values else list(range(L + 1))
        if any(k < 0 or k > L for k in ks):
            raise ValueError(f"k_values: every k must be within 0..{L}, got {ks}")
        k_sum = L // 2 if c.k_summary < 0 else c.k_summary
        if k_sum > L:
            raise ValueError(f"k_summary: {k_sum} exceeds the model's {L} layers")
        ks = sorted(set(ks) | {0, k_sum})
        total = 2 + len(ks) + (L if c.layer_sensitivity else 0)
        done = 0

        corpus = build_corpus(corpus_cfg.corpus, max_chars=corpus_cfg.max_chars, valid_fraction=0.1)
        ctx.record_dataset("corpus-stdlib", corpus.sha256, "python stdlib")
        train_ids = encode_documents(tok, corpus.train)
        valid_ids = encode_documents(tok, corpus.valid)
        gen = torch.Generator().manual_seed(ctx.seed)
        calib = random_windows(train_ids, c.calib_windows, c.seq_len - 1, gen)
        tasks = (
            {t: generate_task(t, corpus.valid, c.mc_items, seed=ctx.seed) for t in TASKS}
            if c.mc_items
            else {}
        )
        tasks.update(load_task_files(parse_paths(c.task_files)))
        prompt = random_windows(valid_ids, c.speed_batch, c.prompt_len - 1, gen)

        stats = collect_layer_stats(model, calib.split(8), device=ctx.device)
        scores = layer_scores(stats, c.ridge)
        for i in range(L):
            ctx.log(
                f"layer {i}: cca_bound={scores[i]['cca_bound']:.4f} mse_bound={scores[i]['mse_bound']:.4g} "
                f"cosine={scores[i]['cosine']:.4f}"
            )
        done += 1
        ctx.progress(done, total, "calibrated")

        def evaluate(m) -> dict[str, float]:
            res = {
                "nll": stream_nll(
                    m, valid_ids, seq_len=c.seq_len, max_windows=c.eval_windows, device=ctx.device
                )["nll"]
            }
            accs = []
            for t, items in tasks.items():
                res[f"acc_{t}"] = score_multiple_choice(m, tok, items, device=ctx.device)["acc"]
                accs.append(res[f"acc_{t}"])
            res["mc_acc"] = sum(accs) / len(accs) if accs else math.nan
            return res

        def variant(layers: list[int], how: str):
            m = copy.deepcopy(model)
            if how == "linear":
                return linearize_layers(m, {i: (scores[i]["W"], scores[i]["b"]) for i in layers})
            return drop_attention_layers(m, layers)

        base = evaluate(model)
        done += 1
        ctx.progress(done, total, f"original ppl {math.exp(base['nll']):.2f}")

        spearman = math.nan
        if c.layer_sensitivity:
            increases = []
            for i in range(L):
                ctx.check_cancelled()
                m = variant([i], "linear")
                increases.append(
                    stream_nll(
                        m,
                        valid_ids,
                        seq_len=c.seq_len,
                        max_windows=c.eval_windows,
                        device=ctx.device,
                    )["nll"]
                    - base["nll"]
                )
                done += 1
                ctx.progress(done, total, f"single-block sensitivity {i + 1}/{L}")
            bounds = [scores[i]["cca_bound"] for i in range(L)]
            spearman = _spearman(bounds, increases)
            sens = [
                {
                    "layer": i,
                    "cca_bound": bounds[i],
                    "mse_bound": scores[i]["mse_bound"],
                    "cosine": scores[i]["cosine"],
                    "nll_increase": increases[i],
                }
                for i in range(L)
            ]
            ctx.save_artifact("layer_sensitivity", sens)
            ctx.save_artifact("bound_vs_loss", _sensitivity_figure(sens, spearman))

        rows = []
        for k in ks:
            ctx.check_cancelled()
            layers = method.select(scores, k, seed=ctx.seed)
            m = variant(layers, method.replacement) if k else model
            res = evaluate(m) if k else base
            # the original is timed next to every variant, interleaved, so each ratio is side by side
            sp = compare_generation(
                {"base": model, "variant": m}, prompt, c.decode_tokens, c.speed_repeats
            )
            base_speed, speed = sp["base"], (sp["variant"] if k else sp["base"])
            row = {
                "k": k,
                "layers": layers,
                "ppl": math.exp(res["nll"]),
                **res,
                "prefill_speedup": speed["prefill_tok_s"] / base_speed["prefill_tok_s"],
                "decode_speedup": speed["decode_tok_s"] / base_speed["decode_tok_s"],
                "kv_cache_ratio": speed["kv_cache_bytes"] / max(1.0, base_speed["kv_cache_bytes"]),
                **speed,
            }
            rows.append(row)
            ctx.log(
                f"k={k} layers={layers} ppl={row['ppl']:.3f} mc_acc={row['mc_acc']:.3f} "
                f"prefill x{row['prefill_speedup']:.2f} decode x{row['decode_speedup']:.2f}"
            )
            ctx.log_metrics(k, **{key: v for key, v in row.items() if key not in ("k", "layers")})
            done += 1
            ctx.progress(done, total, f"k={k}")

        at = next(r for r in rows if r["k"] == k_sum)
        base_ppl = math.exp(base["nll"])
        ctx.log(f"summary at k={k_sum}: layers {at['layers']}")
        ctx.log_summary(
            ppl_at_k=at["ppl"],
            ppl_increase_pct=100 * (at["ppl"] / base_ppl - 1),
            mc_acc_at_k=at["mc_acc"],
            mc_acc_drop=base["mc_acc"] - at["mc_acc"],
            prefill_speedup=at["prefill_speedup"],
            decode_speedup=at["decode_speedup"],
            kv_cache_ratio=at["kv_cache_ratio"],
            spearman_bound_loss=spearman,
            base_ppl=base_ppl,
            k=float(k_sum),
            num_layers=float(L),
        )
        ctx.save_artifact("nbl_vs_k", _figure(rows, method.name))
        ctx.save_artifact("nbl_rows", rows)


def _figure(rows: list[dict], method_name: str):
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    ks = [r["k"] for r in rows]
    fig = make_subplots(
        rows=1, cols=3, subplot_titles=("perplexity", "MC accuracy", "speed-up / KV ratio")
    )
    fig.add_trace(go.Scatter(x=ks, y=[r["ppl"] for r in rows], name="ppl"), 1, 1)
    fig.add_trace(go.Scatter(x=ks, y=[r["mc_acc"] for r in rows], name="mc acc"), 1, 2)
    for key in ("prefill_speedup", "decode_speedup", "kv_cache_ratio"):
        fig.add_trace(go.Scatter(x=ks, y=[r[key] for r in rows], name=key), 1, 3)
    fig.update_layout(title=f"{method_name}: replaced attention blocks k", xaxis_title="k")
    return fig


def _sensitivity_figure(rows: list[dict], spearman: float):
    import plotly.graph_objects as go

    fig = go.Figure(
        go.Scatter(
            x=[r["cca_bound"] for r in rows],
            y=[r["nll_increase"] for r in rows],
            mode="markers+text",
            text=[f"layer {r['layer']}" for r in rows],
            textposition="top center",
        )
    )
    fig.update_layout(
        title=f"Per-block CCA bound vs NLL increase when only that block is linearised "
        f"(Spearman {spearman:.2f})",
        xaxis_title="sum_i (1 - rho_i^2)",
        yaxis_title="NLL increase (nats)",
    )
    return fig
