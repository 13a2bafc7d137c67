"""FastSVERL: approximation error vs training updates, and cost vs exact enumeration as d grows.

    .venv/bin/python -m bench.sverl_scaling                      # both tables, 5 seeds
    .venv/bin/python -m bench.sverl_scaling --seeds 0 1 2 --dims 2 4 6 --updates 2000

Table 1 runs each explainer on the gridworld (n=4, d=2) and Mastermind (2 pegs, 2 colours,
2 guesses; d=8) for DQN and PPO agents and reports the Shapley MSE against exact enumeration
at several update counts (the benchmark's train_shapley_mse curve), plus outcome explanations
on the gridworld with the learned (paper) and the exact outcome characteristic. Table 2 grows
the gridworld's dimension d (n=3) and reports exact time, method time, inference time and
error, side by side in one run. Every cell is the mean over --seeds (each seed retrains the
agent, recollects experience and retrains the explainer) with a 95% t confidence interval.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from scipy import stats

from workers.core import InMemoryRunContext, get_benchmark, get_method


def run(bench: dict, method: str, mcfg: dict, seed: int) -> InMemoryRunContext:
    ctx = InMemoryRunContext(seed=seed)
    get_benchmark("sverl-explain")(bench).run(ctx, get_method(method)(mcfg))
    return ctx


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of the 95% t confidence interval (nan with a single value)."""
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return float(x.mean()), float("nan")
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return float(x.mean()), float(half)


def fmt(values: list[float], spec: str = ".2e") -> str:
    m, h = mean_ci(values)
    return f"{m:{spec}}" if np.isnan(h) else f"{m:{spec}} ± {h:{spec}}"


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dims", type=int, nargs="*", default=[2, 3, 4, 5, 6])
    ap.add_argument("--updates", type=int, default=600)
    ap.add_argument("--outcome-updates", type=int, default=1500)
    ap.add_argument("--permutations", type=int, default=8)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--skip-curves", action="store_true")
    ap.add_argument(
        "--envs", nargs="+", default=["gridworld", "mastermind"], help="environments of table 1"
    )
    ap.add_argument(
        "--explanation",
        default="behaviour",
        choices=["behaviour", "prediction"],
        help="what the scaling table explains (prediction has one output: less memory at large d)",
    )
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    U, seeds = args.updates, args.seeds
    mcfg = {"char_updates": U, "shapley_updates": U, "eval_every": max(1, U // 10)}
    out: list[str] = [f"seeds: {seeds}; cells: mean ± 95% CI half-width (t, n={len(seeds)})", ""]
    if not args.skip_curves:
        every = mcfg["eval_every"]  # the curve is logged every `every` updates and at the end
        marks = sorted({0, every, 5 * every, U - 1} & ({*range(0, U, every)} | {U - 1}))
        out += [
            "| env | agent | explanation | method | "
            + " | ".join(f"MSE @ {m + 1} upd" for m in marks)
            + " | final rel. err |",
            "|---|---|---|---|" + "---|" * (len(marks) + 1),
        ]
        rows: list[tuple[dict, str, str, str, dict, str]] = []
        for env_cfg, env_label in (
            ({"env": "gridworld", "grid_n": 4, "grid_d": 2}, "gridworld 4x4"),
            ({"env": "mastermind", "mm_guesses": 2}, "mastermind 2-2-2"),
        ):
            if env_cfg["env"] not in args.envs:
                continue
            if env_cfg["env"] == "gridworld":  # outcome explanations first: the new rows
                for oc in ("learned", "exact"):
                    extra = {"outcome_characteristic": oc, "outcome_updates": args.outcome_updates}
                    for method in ("sverl-fastsverl", "sverl-fastsverl-offpolicy"):
                        if oc == "exact" and method.endswith("offpolicy"):
                            continue  # same exact characteristic: nothing off-policy about it
                        rows.append(
                            (
                                {**env_cfg, "agent": "ppo", "explanation": "outcome"},
                                env_label,
                                "ppo",
                                f"outcome ({oc} char.)",
                                extra,
                                method,
                            )
                        )
            for agent in ("dqn", "ppo"):
                for expl in ("behaviour", "prediction"):
                    for method in ("sverl-fastsverl", "sverl-fastsverl-offpolicy"):
                        rows.append(
                            (
                                {**env_cfg, "agent": agent, "explanation": expl},
                                env_label,
                                agent,
                                expl,
                                {},
                                method,
                            )
                        )
        for bench, env_label, agent, expl, extra, method in rows:
            curves, rel = [], []
            for seed in seeds:
                ctx = run(bench, method, {**mcfg, **extra}, seed)
                curves.append(dict(ctx.series("train_shapley_mse")))
                rel.append(ctx.summary["shapley_rel_err"])
            vals = " | ".join(fmt([c.get(m, float("nan")) for c in curves]) for m in marks)
            out.append(
                f"| {env_label} | {agent} | {expl} | {method} | {vals} | {fmt(rel, '.3f')} |"
            )
            print(out[-1], flush=True)
        out.append("")
    if not args.dims:
        return _emit(out, args.out)
    out += [
        "| d | states | method | exact (s) | method train+infer (s) | speed-up | inference ms/state | Shapley MSE | rel. err |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d in args.dims:
        bench = {
            "env": "gridworld",
            "grid_n": 3,
            "grid_d": d,
            "agent": "ppo",
            "explanation": args.explanation,
            "buffer_steps": 3000,
        }
        for method, cfg in (
            ("sverl-fastsverl", mcfg),
            ("sverl-sampling", {**mcfg, "permutations": args.permutations}),
            ("sverl-enumeration", mcfg),
        ):
            res: dict[str, list[float]] = {}
            for seed in seeds:
                ctx = run(bench, method, cfg, seed)
                res.setdefault("states", []).append(
                    float(next(m for m in ctx.logs if "unique states" in m).split()[0])
                )
                for k in (
                    "exact_seconds",
                    "method_seconds",
                    "speedup",
                    "inference_ms_per_state",
                    "shapley_mse",
                    "shapley_rel_err",
                ):
                    res.setdefault(k, []).append(ctx.summary[k])
            out.append(
                f"| {d} | {np.mean(res['states']):.0f} | {method} | {fmt(res['exact_seconds'], '.3f')} | "
                f"{fmt(res['method_seconds'], '.2f')} | {fmt(res['speedup'], '.3f')} | "
                f"{fmt(res['inference_ms_per_state'], '.4f')} | {fmt(res['shapley_mse'])} | {fmt(res['shapley_rel_err'], '.3f')} |"
            )
            print(out[-1], flush=True)
    return _emit(out, args.out)


def _emit(lines: list[str], path: str) -> str:
    table = "\n".join(lines)
    print(table)
    if path:
        with open(path, "w") as fh:
            fh.write(table + "\n")
    return table


if __name__ == "__main__":
    main()
