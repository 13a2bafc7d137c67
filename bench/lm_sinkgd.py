"""SinkGD vs Adam vs SGD vs SWAN pre-training the tiny Llama: matched learning-rate sweeps, seeds, CIs.

    .venv/bin/python -m bench.lm_sinkgd [--steps 150] [--seeds 3] [--lrs 3e-4,1e-3,3e-3,1e-2] [--out FILE]

Protocol: for each optimizer, sweep the same learning-rate grid on seed 0 (SGD's grid is scaled
x100 because raw gradients are ~100x smaller than normalised updates); take the LR with the lowest
final validation NLL; rerun it on `--seeds` seeds (same batches per seed for every optimizer).
Reports mean and 95% t-interval of final validation NLL, tokens to reach Adam's mean final
validation NLL (interpolated between evaluations), step time, and optimizer-state bytes (all
parameters, and the matrices alone). Writes a Markdown table.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import torch
from scipy import stats as st

from workers.benchmarks.lm_pretrain.benchmark import tokens_to_target
from workers.core import InMemoryRunContext, get_benchmark, get_method
from workers.methods.sinkgd.optim import matrix_param_groups
from workers.models.tiny_llama import TinyLlamaConfig, build_llama

OPTIMIZERS = {  # name -> (method, config for a given lr)
    "adam": ("lm_adam", lambda lr: {"lr": lr}),
    "sgd": ("lm_sgd", lambda lr: {"lr": lr * 100}),
    "sinkgd": ("sinkgd", lambda lr: {"lr": lr, "adam_lr": lr}),
    "swan": ("sinkgd_swan", lambda lr: {"lr": lr, "adam_lr": lr}),
}


def run_one(bench, opt: str, lr: float, seed: int) -> dict:
    method, cfg = OPTIMIZERS[opt]
    ctx = InMemoryRunContext(seed=seed)
    bench.run(ctx, get_method(method)(cfg(lr)))
    hist = [{"tokens": r.values["tokens"], **r.values} for r in ctx.metrics if "tokens" in r.values]
    return {"summary": ctx.summary, "history": hist}


def matrix_state_bytes(opt: str, lr: float, bench) -> int:
    """State bytes held for the body's matrices alone after one step (embeddings/head/norms excluded)."""
    c = bench.config
    model = build_llama(
        TinyLlamaConfig(
            hidden_size=c.hidden_size,
            num_layers=c.num_layers,
            num_heads=c.num_heads,
            intermediate_size=c.intermediate_size,
        ),
        300,
        bos_id=1,
        eos_id=2,
        pad_id=0,
    )
    optimizer = get_method(OPTIMIZERS[opt][0])(OPTIMIZERS[opt][1](lr)).build_optimizer(model)
    model(
        input_ids=torch.randint(0, 300, (1, 8)), labels=torch.randint(0, 300, (1, 8))
    ).loss.backward()
    optimizer.step()
    mats = {id(p) for p in matrix_param_groups(model, lr, lr)[0]["params"]}
    return sum(
        v.numel() * v.element_size()
        for p, s in optimizer.state.items()
        if id(p) in mats
        for v in s.values()
        if isinstance(v, torch.Tensor)
    )


def ci95(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, math.nan
    return m, st.t.ppf(0.975, len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--lrs", default="1e-3,3e-3,1e-2")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--max-chars", type=int, default=400_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--optimizers", default="adam,sgd,sinkgd,swan")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    lrs = [float(x) for x in args.lrs.split(",")]
    opts = args.optimizers.split(",")
    bench = get_benchmark("lm_pretrain")(
        dict(
            max_chars=args.max_chars,
            vocab_size=1024,
            hidden_size=args.hidden,
            num_layers=args.layers,
            num_heads=max(1, args.hidden // 32),
            intermediate_size=(args.hidden * 8 // 3 + 7) // 8 * 8,
            seq_len=args.seq_len,
            batch_size=args.batch,
            steps=args.steps,
            warmup=max(1, args.steps // 10),
            eval_points=15,
            eval_windows=16,
            save_model=False,
        )
    )
    t_start = time.time()
    lines = [
        "## Learning-rate sweep (seed 0): final validation NLL",
        "",
        "| optimizer | " + " | ".join(f"lr {lr:g}" for lr in lrs) + " |",
        "|---" * (len(lrs) + 1) + "|",
    ]
    best: dict[str, tuple[float, dict]] = {}
    for opt in opts:
        cells = []
        for lr in lrs:
            res = run_one(bench, opt, lr, 0)
            nll = res["summary"]["val_nll"]
            cells.append("diverged" if math.isnan(nll) else f"{nll:.3f}")
            if not math.isnan(nll) and (
                opt not in best or nll < best[opt][1]["summary"]["val_nll"]
            ):
                best[opt] = (lr, res)
            print(opt, lr, cells[-1], f"{time.time() - t_start:.0f}s", flush=True)
        lines.append(f"| {opt} | " + " | ".join(cells) + " |")
    runs: dict[str, list[dict]] = {}
    for opt, (lr, res0) in best.items():
        runs[opt] = [res0] + [run_one(bench, opt, lr, s) for s in range(1, args.seeds)]
    adam_target = (
        statistics.fmean(r["summary"]["val_nll"] for r in runs["adam"])
        if "adam" in runs
        else math.nan
    )
    tokens_total = runs[opts[0]][0]["summary"]["tokens_seen"]
    lines += [
        "",
        f"## Best LR, {args.seeds} seeds (mean +- 95% t-interval); target = Adam's mean final val NLL "
        f"{adam_target:.3f}; {tokens_total:.0f} tokens per run",
        "",
        "| optimizer | lr | final val NLL | val ppl | tokens to Adam's final NLL | fraction of Adam's tokens "
        "| step ms | optimizer state (all) | optimizer state (matrices) |",
        "|---" * 9 + "|",
    ]
    for opt, rs in runs.items():
        lr = best[opt][0]
        nll_m, nll_h = ci95([r["summary"]["val_nll"] for r in rs])
        ttt = [tokens_to_target(r["history"], adam_target) for r in rs]
        reached = [t for t in ttt if not math.isnan(t)]
        t_m, t_h = ci95(reached) if reached else (math.nan, math.nan)
        step_m, _ = ci95([r["summary"]["step_time_ms"] for r in rs])
        frac = t_m / tokens_total if reached else math.nan
        lines.append(
            f"| {opt} | {OPTIMIZERS[opt][1](lr)['lr']:g} | {nll_m:.3f} +- {nll_h:.3f} | {math.exp(nll_m):.2f} | "
            f"{t_m:.0f} +- {t_h:.0f} ({len(reached)}/{len(rs)} reached) | {frac:.2f} | {step_m:.1f} | "
            f"{rs[0]['summary']['opt_state_bytes'] / 1024:.0f} KiB | "
            f"{matrix_state_bytes(opt, lr, bench) / 1024:.1f} KiB |"
        )
    lines += [
        "",
        f"Total wall time {time.time() - t_start:.0f} s; model {rs[0]['summary']['parameters']:.0f} parameters.",
    ]
    text = "\n".join(lines)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
