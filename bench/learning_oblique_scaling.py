"""Scalability of the ReLU+Argmin oblique tree: large generated data and deep trees.

    .venv/bin/python -m bench.learning_oblique_scaling [--throughput-depths 2 4 6 8 10 12]
        [--ns 10000 100000 1000000] [--depths 2 4 6 8] [--max-depth-at-1e6 4] [--repeats 3]
        [--epochs 1] [--n-scales 3] [--batch-size 4096] [--forest-trees 0]
        [--forest-max-samples 0.2] [--device cpu] [--threads 1]

(`--throughput-depths` or `--ns` with no value skips that table.)

Two tables (Markdown on stdout):

1. Training throughput per depth: mini-batch gradient steps (forward + backward + AdamW) of the
   whole tree on `--batch-size` samples, and the hard (argmin) labelling of 10^5 samples; the
   seconds one epoch over 10^6 samples takes follow from the measured rates.
2. Test accuracy at scale: make_classification data with n training samples (10 features,
   3 classes, 2 clusters per class, 20% extra held out for test), ReLU+Argmin trained with
   mini-batches (CART warm start, `--n-scales` annealing stages x `--epochs` epochs) against
   CART of the same depth (and, with `--forest-trees N`, a random forest of N trees of that
   depth, each on a `--forest-max-samples` bootstrap fraction), mean ± 95% CI over `--repeats`
   data seeds, the paired difference ReLU+Argmin - CART over the same seeds, and fit time.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from workers.benchmarks.zen_fewshot.benchmark import mean_ci95
from workers.methods.oblique_tree.estimators import ReluArgminTreeClassifier
from workers.methods.oblique_tree.reluargmin import ReluArgminTree, soft_objective


def throughput(depth: int, batch: int, steps: int, device: str) -> tuple[float, float]:
    """(training samples/s, hard-labelling samples/s) of a depth-`depth` tree on 10 features."""
    g = torch.Generator().manual_seed(depth)
    tree = ReluArgminTree(depth, 10, 3).to(device)
    X = torch.randn(batch, 10, generator=g).to(device)
    y = torch.randint(0, 3, (batch,), generator=g).to(device)
    opt = torch.optim.AdamW(tree.parameters(), lr=0.01)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        soft_objective(tree, X, y, 10.0, "classification").backward()
        opt.step()

    step()  # warm-up (allocator, kernels)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    train_rate = steps * batch / (time.perf_counter() - t0)
    X_big = torch.randn(100_000, 10, generator=g).to(device)
    t0 = time.perf_counter()
    with torch.no_grad():
        tree.leaf_index(X_big)
    sync()
    return train_rate, len(X_big) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--throughput-depths", nargs="*", type=int, default=[2, 4, 6, 8, 10, 12])
    ap.add_argument("--steps", type=int, default=5, help="timed gradient steps per depth")
    ap.add_argument("--ns", nargs="*", type=int, default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--depths", nargs="*", type=int, default=[2, 4, 6, 8])
    ap.add_argument(
        "--max-depth-at-1e6", type=int, default=4, help="skip deeper trees at n >= 10^6"
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=1, help="epochs per annealing stage")
    ap.add_argument("--n-scales", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=4096)
    ap.add_argument("--forest-trees", type=int, default=0, help="random forest size (0 = none)")
    ap.add_argument("--forest-max-samples", type=float, default=0.2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"device {args.device}, torch threads {args.threads}, batch {args.batch_size}, "
        f"load average {os.getloadavg()[0]:.2f}\n"
    )
    if args.throughput_depths:
        print(
            "| depth | leaves | train samples/s | s per epoch of 10^6 (from rate) | "
            "hard labelling samples/s |"
        )
        print("|---|---|---|---|---|")
        for depth in args.throughput_depths:
            tr, lab = throughput(depth, args.batch_size, args.steps, args.device)
            print(
                f"| {depth} | {2**depth} | {tr:,.0f} | {1e6 / tr:,.1f} | {lab:,.0f} |", flush=True
            )
        print()
    if not args.ns:
        return
    forest = f"Random forest ({args.forest_trees})"
    print(
        f"ReLU+Argmin: CART warm start, {args.n_scales} stages x {args.epochs} epochs, "
        f"batch {args.batch_size}; {args.repeats} data seeds\n"
    )
    print(
        "| n train | depth | model | test accuracy % (mean ± 95% CI) | "
        "minus CART, paired (points) | fit time (s) |"
    )
    print("|---|---|---|---|---|---|")
    for n in args.ns:
        for depth in args.depths:
            if n >= 1_000_000 and depth > args.max_depth_at_1e6:
                continue
            res: dict[str, tuple[list[float], list[float]]] = {
                "ReLU+Argmin": ([], []),
                "CART": ([], []),
            }
            if args.forest_trees:
                res[forest] = ([], [])
            for r in range(args.repeats):
                X, y = make_classification(
                    n_samples=int(n * 1.25),
                    n_features=10,
                    n_informative=5,
                    n_redundant=0,
                    n_classes=3,
                    n_clusters_per_class=2,
                    random_state=r,
                )
                Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
                models = {
                    "ReLU+Argmin": ReluArgminTreeClassifier(
                        max_depth=depth,
                        n_scales=args.n_scales,
                        epochs=args.epochs,
                        batch_size=args.batch_size,
                        random_state=r,
                        device=args.device,
                    ),
                    "CART": DecisionTreeClassifier(max_depth=depth, random_state=r),
                    forest: RandomForestClassifier(
                        n_estimators=args.forest_trees,
                        max_depth=depth,
                        max_samples=args.forest_max_samples,
                        n_jobs=1,
                        random_state=r,
                    ),
                }
                for name in res:
                    est = models[name]
                    t0 = time.perf_counter()
                    est.fit(Xtr, ytr)
                    res[name][1].append(time.perf_counter() - t0)
                    res[name][0].append(100 * float(np.mean(est.predict(Xte) == yte)))
            for name, (accs, secs) in res.items():
                m, ci = mean_ci95(accs)
                diff = (
                    ""
                    if name == "CART"
                    else "{:+.1f} ± {:.1f}".format(
                        *mean_ci95(list(np.subtract(accs, res["CART"][0])))
                    )
                )
                print(
                    f"| {n:,} | {depth} | {name} | {m:.1f} ± {ci:.1f} | {diff} | "
                    f"{np.mean(secs):.1f} |",
                    flush=True,
                )
        print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
