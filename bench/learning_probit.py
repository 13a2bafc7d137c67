"""Sampling-free normCDF / sigmoid predictives vs softmax + Monte Carlo, side by side.

    .venv/bin/python -m bench.learning_probit [--datasets digits generated]
        [--sources laplace heteroscedastic sngp] [--samples 10 100 1000 10000] [--reference 50000] [--seeds 0 1 2]

For each (dataset, source, seed) three MLPs are trained, one per link with its matching loss,
and their Gaussian logits are pushed through every predictive of that link. KL is measured
against a --reference-sample Monte Carlo estimate of the link's exact predictive
E[g(z)/sum g(z)] (independent random numbers). Means over seeds; Markdown on stdout.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
import torch
from sklearn.model_selection import train_test_split

from workers.benchmarks.probit_predictives.benchmark import load_probit_data
from workers.benchmarks.probit_predictives.metrics import accuracy, ece, mean_kl, nll
from workers.methods.probit.heads import GaussianLogitClassifier
from workers.methods.probit.predictives import closed_form_predictive, sample_link_probs


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, 1000 * (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["digits", "generated"])
    ap.add_argument("--sources", nargs="+", default=["laplace", "heteroscedastic", "sngp"])
    ap.add_argument("--samples", nargs="+", type=int, default=[10, 100, 1000, 10000])
    ap.add_argument("--reference", type=int, default=50000)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"seeds {args.seeds}, reference {args.reference} MC samples, torch threads {args.threads}\n"
    )
    print(
        "| dataset | logits from | link | predictive | acc % | NLL | ECE | KL(ref‖pred) | time (ms) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for dataset in args.datasets:
        for source in args.sources:
            rows: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
            for seed in args.seeds:
                X, y = load_probit_data(dataset, 2000, 5, seed)
                Xtr, Xte, ytr, yte = train_test_split(
                    X, y, test_size=0.25, random_state=seed, stratify=y
                )
                for link in ("softmax", "normcdf", "sigmoid"):
                    model = GaussianLogitClassifier(
                        link=link, source=source, random_state=seed
                    ).fit(Xtr, ytr)
                    mu, var = model.logit_moments(Xte)
                    yt = torch.as_tensor(np.searchsorted(model.classes_, yte))
                    ref = sample_link_probs(
                        mu, var, args.reference, link, torch.Generator().manual_seed(10**6 + seed)
                    )
                    gen = torch.Generator().manual_seed(seed)
                    preds = {
                        "closed form" if link != "softmax" else "mean-field (no samples)": timed(
                            closed_form_predictive, mu, var, link
                        )
                    }
                    if link != "sigmoid":
                        for S in args.samples:
                            preds[f"MC {S}"] = timed(sample_link_probs, mu, var, S, link, gen)
                    for name, (p, ms) in preds.items():
                        rows[(link, name)].append(
                            [100 * accuracy(p, yt), nll(p, yt), ece(p, yt), mean_kl(ref, p), ms]
                        )
            for (link, name), vals in rows.items():
                a = np.mean(vals, axis=0)
                print(
                    f"| {dataset} | {source} | {link} | {name} | {a[0]:.1f} | {a[1]:.3f} | {a[2]:.3f} | "
                    f"{a[3]:.2e} | {a[4]:.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
