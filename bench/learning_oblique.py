"""ReLU+Argmin oblique trees vs CART, random forest and a soft tree, per depth, side by side.

    .venv/bin/python -m bench.learning_oblique [--datasets wine breast_cancer diabetes generated]
        [--depths 2 4 6] [--repeats 5] [--n-samples 5000] [--device cpu]

Every model sees the same random train/test splits. Classification: test accuracy (%);
regression: test R^2. Mean ± 95% CI over splits and mean fit time. Markdown on stdout.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sklearn.model_selection import train_test_split

from workers.benchmarks.oblique_trees.benchmark import CLASSIFICATION_SETS, load_task_data
from workers.benchmarks.zen_fewshot.benchmark import mean_ci95
from workers.methods.oblique_baselines.plugin import CartMethod, RandomForestMethod, SoftTreeMethod
from workers.methods.oblique_tree.plugin import ReluArgminMethod

MODELS = {
    "ReLU+Argmin": ReluArgminMethod,
    "CART": CartMethod,
    "Random forest (100)": RandomForestMethod,
    "Soft tree": SoftTreeMethod,
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--datasets", nargs="+", default=["wine", "breast_cancer", "diabetes", "generated"]
    )
    ap.add_argument("--depths", nargs="+", type=int, default=[2, 4, 6])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--n-samples", type=int, default=5000, help="size of the generated sets")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=30, help="ReLU+Argmin epochs per annealing stage")
    ap.add_argument("--n-scales", type=int, default=5, help="ReLU+Argmin annealing stages")
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    methods = {k: cls() for k, cls in MODELS.items() if k in args.models}
    methods["ReLU+Argmin"] = ReluArgminMethod({"epochs": args.epochs, "n_scales": args.n_scales})
    methods = {k: methods[k] for k in MODELS if k in args.models}
    print(
        f"depths {args.depths}, {args.repeats} splits (75/25), device {args.device}, torch threads {args.threads}, "
        f"ReLU+Argmin {args.n_scales} stages x {args.epochs} epochs\n"
    )
    print("| dataset | task | depth | model | test score (mean ± 95% CI) | fit time (s) |")
    print("|---|---|---|---|---|---|")
    for name in args.datasets:
        task = (
            "classification" if name in CLASSIFICATION_SETS and name != "diabetes" else "regression"
        )
        if name == "generated-regression":
            name, task = "generated", "regression"
        X, y = load_task_data(task, name, args.n_samples, 10, 0)
        for depth in args.depths:
            for label, method in methods.items():
                scores, times = [], []
                for r in range(args.repeats):
                    Xtr, Xte, ytr, yte = train_test_split(
                        X,
                        y,
                        test_size=0.25,
                        random_state=r,
                        stratify=y if task == "classification" else None,
                    )
                    est = method.make_estimator(task, depth, r, args.device)
                    t0 = time.perf_counter()
                    est.fit(Xtr, ytr)
                    times.append(time.perf_counter() - t0)
                    s = est.score(Xte, yte)
                    scores.append(100 * s if task == "classification" else s)
                m, ci = mean_ci95(scores)
                unit = "%" if task == "classification" else " R²"
                fmt = (
                    f"{m:.1f} ± {ci:.1f}{unit}"
                    if task == "classification"
                    else f"{m:.3f} ± {ci:.3f}{unit}"
                )
                print(
                    f"| {name} | {task[:5]} | {depth} | {label} | {fmt} | {np.mean(times):.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
