"""ZEN vs its baselines on the ZEN protocol, side by side in one process.

    .venv/bin/python -m bench.learning_zen [--datasets zoo senate-committees] [--k 5] [--splits 10]

For every split all four models see the same train/val/test nodes; times are wall-clock
fit+predict (ZEN's includes its simplex grid search). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import torch

from workers.benchmarks.zen_fewshot.benchmark import few_shot_split, mean_ci95
from workers.benchmarks.zen_fewshot.data import resolve_dataset
from workers.methods.hypergraph_baselines.models import TrainedNodeClassifier
from workers.methods.zen.zen import ZEN

MODELS = {
    "ZEN": lambda s: ZEN(),
    "ZEN w/o RSI removal": lambda s: ZEN(remove_rsi=False),
    "HGNN (trained)": lambda s: TrainedNodeClassifier("hgnn", seed=s),
    "MLP (trained)": lambda s: TrainedNodeClassifier("mlp", seed=s),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["zoo", "senate-committees"])
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cache", default="var/data/zen")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"k={args.k}, {args.splits} splits, seed {args.seed}, torch threads {args.threads}, "
        f"{platform.processor() or platform.machine()}\n"
    )
    print(
        "| dataset | model | test accuracy % (mean ± 95% CI) | time per split (s) | ZEN speed-up vs it |"
    )
    print("|---|---|---|---|---|")
    for name in args.datasets:
        data = resolve_dataset(name, args.cache)
        rng = np.random.default_rng(args.seed)
        splits = [few_shot_split(data.Y, args.k, rng) for _ in range(args.splits)]
        acc = {m: [] for m in MODELS}
        sec = {m: [] for m in MODELS}
        for s, (tr, va, te) in enumerate(splits):
            for m, make in MODELS.items():
                est = make(args.seed * 1000 + s)
                t0 = time.perf_counter()
                pred = est.fit(data.H, data.X, data.Y, tr, va).predict(te)
                sec[m].append(time.perf_counter() - t0)
                acc[m].append(100 * (pred == data.Y[te]).float().mean().item())
        zen_t = np.mean(sec["ZEN"])
        for m in MODELS:
            mu, ci = mean_ci95(acc[m])
            t = np.mean(sec[m])
            print(f"| {name} | {m} | {mu:.1f} ± {ci:.1f} | {t:.4f} | {t / zen_t:.1f}x |")
        fastest = min(np.mean(sec[m]) for m in ("HGNN (trained)", "MLP (trained)"))
        print(
            f"| {name} | **ZEN speed-up over fastest trained baseline** | | | **{fastest / zen_t:.1f}x** |"
        )


if __name__ == "__main__":
    main()
