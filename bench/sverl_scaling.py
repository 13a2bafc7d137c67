"""FastSVERL: approximation error vs training updates, and cost vs exact enumeration as d grows.

    .venv/bin/python -m bench.sverl_scaling                      # both tables, small settings
    .venv/bin/python -m bench.sverl_scaling --dims 2 4 6 8 --updates 2000

Table 1 runs each explainer on the gridworld (n=4, d=2) and Mastermind (2 pegs, 2 colours,
2 guesses; d=8) for DQN and PPO agents and reports the Shapley MSE against exact enumeration
at several update counts (the benchmark's train_shapley_mse curve). Table 2 grows the
gridworld's dimension d (n=3) and reports exact time, method time, inference time and error,
side by side in one run.
"""

from __future__ import annotations

import argparse

import torch

from workers.core import InMemoryRunContext, get_benchmark, get_method


def run(bench: dict, method: str, mcfg: dict, seed: int) -> InMemoryRunContext:
    ctx = InMemoryRunContext(seed=seed)
    get_benchmark("sverl-explain")(bench).run(ctx, get_method(method)(mcfg))
    return ctx


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dims", type=int, nargs="*", default=[2, 3, 4, 5, 6])
    ap.add_argument("--updates", type=int, default=1000)
    ap.add_argument("--permutations", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-curves", action="store_true")
    ap.add_argument(
        "--explanation",
        default="behaviour",
        choices=["behaviour", "prediction"],
        help="what the scaling table explains (prediction has one output: less memory at large d)",
    )
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    U = args.updates
    mcfg = {"char_updates": U, "shapley_updates": U, "eval_every": max(1, U // 10)}
    out: list[str] = []
    if not args.skip_curves:
        every = mcfg["eval_every"]  # the curve is logged every `every` updates and at the end
        marks = sorted({0, every, 2 * every, 5 * every, U - 1} & ({*range(0, U, every)} | {U - 1}))
        out += [
            "| env | agent | explanation | method | "
            + " | ".join(f"MSE @ {m + 1} upd" for m in marks)
            + " | final rel. err |",
            "|---|---|---|---|" + "---|" * (len(marks) + 1),
        ]
        settings = [
            ({"env": "gridworld", "grid_n": 4, "grid_d": 2}, "gridworld 4x4"),
            ({"env": "mastermind", "mm_guesses": 2}, "mastermind 2-2-2"),
        ]
        for env_cfg, env_label in settings:
            for agent in ("dqn", "ppo"):
                for expl in ("behaviour", "prediction"):
                    for method in ("sverl-fastsverl", "sverl-fastsverl-offpolicy"):
                        ctx = run(
                            {**env_cfg, "agent": agent, "explanation": expl},
                            method,
                            mcfg,
                            args.seed,
                        )
                        curve = dict(ctx.series("train_shapley_mse"))
                        vals = " | ".join(f"{curve.get(m, float('nan')):.2e}" for m in marks)
                        out.append(
                            f"| {env_label} | {agent} | {expl} | {method} | {vals} | {ctx.summary['shapley_rel_err']:.3f} |"
                        )
                        print(out[-1], flush=True)
            ctx = (
                run(
                    {**env_cfg, "agent": "ppo", "explanation": "outcome"},
                    "sverl-fastsverl",
                    mcfg,
                    args.seed,
                )
                if env_cfg["env"] == "gridworld"
                else None
            )
            if ctx is not None:
                curve = dict(ctx.series("train_shapley_mse"))
                vals = " | ".join(f"{curve.get(m, float('nan')):.2e}" for m in marks)
                out.append(
                    f"| {env_label} | ppo | outcome (exact char.) | sverl-fastsverl | {vals} | {ctx.summary['shapley_rel_err']:.3f} |"
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
            ctx = run(bench, method, cfg, args.seed)
            s = ctx.summary
            n_states = next(m for m in ctx.logs if "unique states" in m).split()[0]
            out.append(
                f"| {d} | {n_states} | {method} | {s['exact_seconds']:.3f} | {s['method_seconds']:.2f} | "
                f"{s['speedup']:.3f} | {s['inference_ms_per_state']:.4f} | {s['shapley_mse']:.2e} | {s['shapley_rel_err']:.3f} |"
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
