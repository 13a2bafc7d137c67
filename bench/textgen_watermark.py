"""Watermarks on the char-level Llama: detection power vs distortion, code vs prose, robustness.

    .venv/bin/python -m bench.textgen_watermark [--n-prompts 6] [--new-tokens 48] [--steps 150]
        [--context-width 1] [--seeds 0] [--lm char|tiny_llama] [--temperature 1.0]
        [--p-value normal|simulated] [--out FILE]

Runs the `wm_detection` benchmark once per method (and seed) through an in-memory run context;
the char-level Llama is trained once per seed and cached under var/data. Writes Markdown tables:
the summary per method (mean over seeds) and each method's trade-off sweep.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from workers.core import InMemoryRunContext, get_benchmark, get_method

METHODS = ("wm_heavywater", "wm_simplexwater", "wm_redgreen", "wm_gumbel", "wm_inverse_transform")
COLS = (
    "tpr_at_1fpr",
    "fpr",
    "tokens_to_p02",
    "kl_distortion",
    "perplexity",
    "perplexity_unwatermarked",
    "tpr_code",
    "tpr_text",
    "entropy_code",
    "entropy_text",
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-prompts", type=int, default=6)
    ap.add_argument("--new-tokens", type=int, default=48)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--context-width", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--methods", nargs="+", default=list(METHODS))
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--lm", choices=["char", "tiny_llama"], default="char")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--temperature", type=float, default=1.0, help="< 1: low-entropy regime")
    ap.add_argument(
        "--p-value",
        choices=["normal", "simulated"],
        default="normal",
        help="HeavyWater's p-value: the paper's normal tail or the simulated exact null",
    )
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    bench = get_benchmark("wm_detection")(
        {
            "n_prompts": args.n_prompts,
            "new_tokens": args.new_tokens,
            "lm_train_steps": args.steps,
            "sweep": not args.no_sweep,
            "lm": args.lm,
            "lm_hidden": args.hidden,
            "lm_layers": args.layers,
            "temperature": args.temperature,
        }
    )
    header = (
        f"wm_detection: {args.n_prompts} code + {args.n_prompts} prose prompts, {args.new_tokens} new tokens, "
        f"{args.lm} Llama {args.layers}x{args.hidden}, {args.steps} steps, context width {args.context_width}, temperature {args.temperature}, "
        f"HeavyWater p-value {args.p_value}, seeds {args.seeds}"
    )
    rows, sweeps = [], []
    for name in args.methods:
        per_seed, t0 = [], time.time()
        for seed in args.seeds:
            ctx = InMemoryRunContext(seed=seed)
            cfg = {"context_width": args.context_width}
            if name == "wm_heavywater":
                cfg["p_value"] = args.p_value
            bench.run(ctx, get_method(name)(cfg))
            per_seed.append(ctx.summary)
            for p in json.loads(ctx.artifacts["tradeoff_points"][0]):
                sweeps.append((name, seed, p))
        robust = sorted(
            k for k in per_seed[0] if k.startswith("tpr_sub") or k.startswith("tpr_del")
        )
        mean = {k: float(np.mean([s[k] for s in per_seed])) for k in (*COLS, *robust)}
        rows.append((name, mean, robust, time.time() - t0))
        print(name, {k: round(v, 3) for k, v in mean.items()}, flush=True)
    robust = rows[0][2]
    cols = (*COLS, *robust)
    lines = [
        header,
        "",
        "| method | " + " | ".join(cols) + " | wall s |",
        "|---" * (len(cols) + 2) + "|",
    ]
    for name, mean, _, wall in rows:
        lines.append(
            f"| {name} | " + " | ".join(f"{mean[c]:.3g}" for c in cols) + f" | {wall:.0f} |"
        )
    lines += [
        "",
        "Trade-off sweeps (knob value: TPR, tokens to p<=0.02, KL, perplexity)",
        "",
        "| method | seed | knob | value | tpr | tokens | kl | ppl |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, seed, p in sweeps:
        knob = next(k for k in p if k not in ("tpr", "tokens_to_p02", "kl", "perplexity"))
        lines.append(
            f"| {name} | {seed} | {knob} | {p[knob]} | {p['tpr']:.3g} | {p['tokens_to_p02']:.3g} | "
            f"{p['kl']:.3g} | {p['perplexity']:.3g} |"
        )
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
