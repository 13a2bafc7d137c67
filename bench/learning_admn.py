"""ADMN vs a static uniform split at the same layer budget vs the static full-depth network.

    .venv/bin/python -m bench.learning_admn [--budgets 2 4 6] [--seeds 0 1 2] [--layers 4]
        [--d 32] [--hidden 64] [--epochs 30] [--controller-epochs 30] [--latency-samples 200]
        [--threads 1]

Per seed: one LayerDrop backbone pair (shared by ADMN and the uniform split, so the comparison
isolates the allocation), one full-depth network trained without LayerDrop, and one ADMN
controller per budget. Test accuracy (%) under mixed per-sample corruption and with one random
modality at level s (other clean); analytic matmul FLOPs per sample; median batch-1 latency,
all three paths timed interleaved sample by sample. Markdown on stdout.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import torch

from workers.benchmarks.admn_multimodal.data import (
    load_digit_split,
    make_views,
    one_corrupted,
    random_levels,
)
from workers.benchmarks.zen_fewshot.benchmark import mean_ci95
from workers.methods.admn.network import ADMN, flops_per_sample, full_mask, static_mask
from workers.methods.admn.topl import spread_layers, uniform_split
from workers.methods.admn.training import predict, train_backbones, train_controller


def fmt(values: list[float]) -> str:
    m, ci = mean_ci95(values)
    return f"{m:.1f} ± {ci:.1f}" if len(values) > 1 else f"{m:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budgets", nargs="+", type=int, default=[2, 4, 6])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--d", type=int, default=32, help="backbone width")
    ap.add_argument("--hidden", type=int, default=64, help="hidden width of each layer's MLP")
    ap.add_argument("--levels", nargs="+", type=float, default=[0.0, 0.5, 1.0, 2.0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--controller-epochs", type=int, default=30)
    ap.add_argument("--layerdrop-p", type=float, default=0.5)
    ap.add_argument("--latency-samples", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    conds = ["mixed"] + [f"one@{s:g}" for s in args.levels[1:]]
    acc: dict[tuple, list[float]] = {}
    flops: dict[tuple, list[float]] = {}
    lat: dict[tuple, list[float]] = {}
    to_bad: dict[tuple, list[float]] = {}
    for seed in args.seeds:
        rng = np.random.default_rng(seed)
        Xtr, Xte, ytr, yte, _ = load_digit_split(0.3, seed)
        sig = random_levels(len(Xtr), args.levels, rng)
        vtr, ytr_t = make_views(Xtr, sig, rng), torch.tensor(ytr)
        sig_te = {"mixed": random_levels(len(Xte), args.levels, rng)}
        sig_te.update(
            {f"one@{s:g}": one_corrupted(len(Xte), s, args.levels[0], rng) for s in args.levels[1:]}
        )
        vte = {k: make_views(Xte, s, rng) for k, s in sig_te.items()}
        yte_t = torch.tensor(yte)
        L = [args.layers, args.layers]
        torch.manual_seed(seed)
        base = ADMN([64, 64], 10, L, 1, d=args.d, hidden=args.hidden)
        train_backbones(
            base, vtr, ytr_t, epochs=args.epochs, layerdrop_p=args.layerdrop_p, seed=seed
        )
        torch.manual_seed(seed)
        full = ADMN([64, 64], 10, L, 1, d=args.d, hidden=args.hidden)
        train_backbones(full, vtr, ytr_t, epochs=args.epochs, layerdrop_p=0.0, seed=seed)
        for budget in args.budgets:
            net = copy.deepcopy(base)
            net.budget = budget
            train_controller(
                net,
                vtr,
                ytr_t,
                torch.tensor(sig, dtype=torch.float32),
                epochs=args.controller_epochs,
                seed=seed + 1,
            )
            alloc = uniform_split(budget, L)
            uni_rows = [spread_layers(k, n) for k, n in zip(alloc, L, strict=True)]
            for cond, vs in vte.items():
                n = len(yte)
                runs = {
                    "ADMN": (net, None, True),
                    "static uniform split": (net, static_mask(net, uni_rows, n), False),
                    "static full depth": (full, full_mask(full, n), False),
                }
                for name, (model, mask, ctrl) in runs.items():
                    pred, used = predict(model, vs, mask)
                    key = (budget, name, cond)
                    acc.setdefault(key, []).append(100.0 * float((pred == yte_t).float().mean()))
                    flops.setdefault((budget, name), []).append(
                        float(flops_per_sample(model, used, ctrl).float().mean())
                    )
                    if cond != "mixed":
                        bad = torch.tensor(sig_te[cond][:, 0] > sig_te[cond][:, 1])
                        m0, m1 = (m.sum(-1).float() for m in model.split(used))
                        to_bad.setdefault(key, []).append(float(torch.where(bad, m0, m1).mean()))
            # Latency, batch 1, the three paths interleaved per sample on the mixed test set.
            vs, n = vte["mixed"], min(args.latency_samples, len(yte))
            umask, fmask = static_mask(net, uni_rows, 1), full_mask(full, 1)
            net.eval(), full.eval()
            times = {"ADMN": [], "static uniform split": [], "static full depth": []}
            with torch.no_grad():
                for i in range(n):
                    one = [v[i : i + 1] for v in vs]
                    paths = (
                        ("ADMN", net, None),
                        ("static uniform split", net, umask),
                        ("static full depth", full, fmask),
                    )
                    for name, model, mask in paths:
                        t0 = time.perf_counter()
                        model(one, mask)
                        times[name].append(time.perf_counter() - t0)
            for name, t in times.items():
                lat.setdefault((budget, name), []).append(1e3 * float(np.median(t)))
    full_flops = float(np.mean(flops[(args.budgets[0], "static full depth")]))
    full_lat = {b: lat[(b, "static full depth")] for b in args.budgets}
    print(
        f"seeds {args.seeds}, {args.layers} layers per modality (d {args.d}, hidden {args.hidden}), levels {args.levels}, "
        f"LayerDrop p {args.layerdrop_p}, {args.epochs}+{args.controller_epochs} epochs, threads {args.threads}\n"
    )
    print(
        "| budget L | model | "
        + " | ".join(f"acc {c} (%)" for c in conds)
        + " | layers to the corrupted modality (one@max) | MFLOPs/sample | FLOPs vs full | latency ms | latency vs full |"
    )
    print("|---|---|" + "---|" * (len(conds) + 5))
    for budget in args.budgets:
        for name in ("ADMN", "static uniform split", "static full depth"):
            accs = " | ".join(fmt(acc[(budget, name, c)]) for c in conds)
            fl = float(np.mean(flops[(budget, name)]))
            ratios = [a / b for a, b in zip(lat[(budget, name)], full_lat[budget], strict=True)]
            bad = float(np.mean(to_bad[(budget, name, conds[-1])]))
            print(
                f"| {budget} | {name} | {accs} | {bad:.2f} | {fl / 1e6:.4f} | {fl / full_flops:.2f} | "
                f"{np.mean(lat[(budget, name)]):.3f} | {np.mean(ratios):.2f} |"
            )
        diffs = []
        for c in conds:
            d = [
                a - b
                for a, b in zip(
                    acc[(budget, "ADMN", c)], acc[(budget, "static uniform split", c)], strict=True
                )
            ]
            diffs.append(fmt(d) + f" ({sum(x > 0 for x in d)}/{len(d)} seeds > 0)")
        print(
            f"| {budget} | ADMN − uniform split (paired by seed) | "
            + " | ".join(diffs)
            + " | | | | | |"
        )


if __name__ == "__main__":
    main()
