"""Support recovery of DP best-subset selection vs epsilon, n and p (Markdown table).

    .venv/bin/python -m bench.theory_dpbss [--trials 3] [--draws 20] [--eps 0.5 1 2] [--ns 500 2000]
                                           [--ps 20 50] [--methods ...]

Each row runs the `dpbss-support-recovery` benchmark protocol (fresh data per trial, n_draws DP
supports per trial) for every method side by side in one process; mean and 95% CI over trials.
"""

from __future__ import annotations

import argparse
import math
import time

from workers.core import InMemoryRunContext, get_benchmark, get_method

METHODS = ["dpbss-top-r", "dpbss-mistakes", "dpbss-mcmc", "dpbss-lasso", "dpbss-exact-em"]


def run_cell(method: str, bench_cfg: dict, seed: int) -> dict:
    bench = get_benchmark("dpbss-support-recovery")(bench_cfg)
    ctx = InMemoryRunContext(seed=seed)
    start = time.perf_counter()
    bench.run(ctx, get_method(method)({}))
    return ctx.summary | {"wall": time.perf_counter() - start}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--s", type=int, default=3)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.25, 0.5, 1.0])
    ap.add_argument("--ns", type=int, nargs="+", default=[500, 2000])
    ap.add_argument("--ps", type=int, nargs="+", default=[20, 40])
    ap.add_argument("--base-n", type=int, default=1000)
    ap.add_argument("--base-p", type=int, default=20)
    ap.add_argument("--base-eps", type=float, default=0.5)
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    settings = [("epsilon", e, {"epsilon": e}) for e in args.eps]
    settings += [("n", n, {"n": n}) for n in args.ns if n != args.base_n]
    settings += [("p", p, {"p": p}) for p in args.ps if p != args.base_p]
    print("| sweep | value | method | exact recovery (95% CI) | F1 (95% CI) | s / trial |")
    print("|---|---|---|---|---|---|")
    for sweep, value, override in settings:
        cfg = {
            "n": args.base_n,
            "p": args.base_p,
            "s": args.s,
            "epsilon": args.base_eps,
            "n_trials": args.trials,
            "n_draws": args.draws,
        } | override
        for method in args.methods:
            if method == "dpbss-exact-em" and math.comb(cfg["p"], cfg["s"]) > 20_000:
                continue
            r = run_cell(method, cfg, args.seed)
            print(
                f"| {sweep} | {value} | {method} | {r['exact_recovery']:.3f} ± {r['exact_recovery_ci95']:.3f} | "
                f"{r['f1']:.3f} ± {r['f1_ci95']:.3f} | {r['seconds_per_trial']:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
