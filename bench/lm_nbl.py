"""NBL vs LLM-Drop vs random layer choice on the project's tiny Llama: perplexity, MC accuracy,
throughput and KV cache versus the number k of replaced attention blocks.

    .venv/bin/python -m bench.lm_nbl [--layers 6] [--hidden 96] [--steps 300] [--out docs/nbl.md]

Runs the `nbl_linearize` benchmark once per method through an in-memory run context (the tiny
model is trained once and cached under var/data). Writes a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from workers.core import InMemoryRunContext, get_benchmark, get_method

METHODS = [
    ("nbl", {}),
    ("nbl_llm_drop", {}),
    ("nbl_llm_drop", {"criterion": "cca_bound"}),
    ("nbl_random", {}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=96)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--max-chars", type=int, default=1_000_000)
    ap.add_argument("--mc-items", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    bench = get_benchmark("nbl_linearize")(
        dict(
            tiny_layers=args.layers,
            tiny_hidden=args.hidden,
            tiny_steps=args.steps,
            tiny_max_chars=args.max_chars,
            mc_items=args.mc_items,
            speed_repeats=args.repeats,
        )
    )
    lines = [
        f"NBL benchmark: tiny Llama {args.layers} layers x {args.hidden}, {args.steps} steps, seed {args.seed}",
        "",
    ]
    sens_done = False
    for name, cfg in METHODS:
        t0 = time.time()
        ctx = InMemoryRunContext(seed=args.seed)
        bench.run(ctx, get_method(name)(cfg))
        rows = json.loads(ctx.artifacts["nbl_rows"][0])
        label = name + (f" ({cfg['criterion']})" if cfg else "")
        if not sens_done:
            sens = json.loads(ctx.artifacts["layer_sensitivity"][0])
            lines += [
                "Per-layer scores (original model) and NLL increase when only that block is linearised:",
                "",
                "| layer | CCA bound sum(1-rho^2) | MSE bound | cos(X, X+Y) | NLL increase |",
                "|---|---|---|---|---|",
            ]
            for r in sens:
                lines.append(
                    f"| {r['layer']} | {r['cca_bound']:.3f} | {r['mse_bound']:.3g} | "
                    f"{r['cosine']:.4f} | {r['nll_increase']:+.4f} |"
                )
            lines += [
                "",
                f"Spearman(CCA bound, NLL increase) = {ctx.summary['spearman_bound_loss']:.3f}",
                "",
            ]
            sens_done = True
        lines += [
            f"### {label}  ({time.time() - t0:.0f} s)",
            "",
            "| k | layers | ppl | MC acc (next_line / continuation) | prefill x | decode x | KV cache x |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['k']} | {r['layers']} | {r['ppl']:.3f} | {r['mc_acc']:.3f} "
                f"({r.get('acc_next_line', float('nan')):.2f} / {r.get('acc_continuation', float('nan')):.2f}) | "
                f"{r['prefill_speedup']:.2f} | {r['decode_speedup']:.2f} | {r['kv_cache_ratio']:.2f} |"
            )
        lines.append("")
        print("\n".join(lines[-len(rows) - 5 :]), flush=True)
    text = "\n".join(lines)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
