"""Meta-RFFT vs direct-answer training: accuracy per length on held-out tasks.

    .venv/bin/python -m bench.textgen_metarfft [--steps 250] [--hidden 64] [--layers 2]
        [--adaptation finetune icl] [--seeds 0] [--out docs/textgen_metarfft.md]

Runs `metarfft_lengthgen` for both methods and each adaptation mode side by side (same seed,
same held-out tasks) and writes a Markdown table of the mean held-out accuracy per length.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from workers.core import InMemoryRunContext, get_benchmark, get_method


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--train-max-length", type=int, default=4)
    ap.add_argument("--eval-max-length", type=int, default=7)
    ap.add_argument("--eval-per-length", type=int, default=4)
    ap.add_argument("--adaptation", nargs="+", default=["finetune", "icl"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    L = list(range(1, args.eval_max_length + 1))
    lines = [
        f"metarfft_lengthgen: {args.steps} pre-training steps, Llama {args.layers}x{args.hidden}, "
        f"train lengths 1-{args.train_max_length}, eval 1-{args.eval_max_length} "
        f"({args.eval_per_length}/task/length), seeds {args.seeds}",
        "",
        "| method | adaptation | "
        + " | ".join(f"L={n}" for n in L)
        + " | short | long | all | wall s |",
        "|---" * (len(L) + 6) + "|",
    ]
    per_task = []
    for adaptation in args.adaptation:
        for name in ("metarfft", "metarfft_direct"):
            curves, sums, t0 = [], [], time.time()
            for seed in args.seeds:
                ctx = InMemoryRunContext(seed=seed)
                bench = get_benchmark("metarfft_lengthgen")(
                    {
                        "pretrain_steps": args.steps,
                        "hidden": args.hidden,
                        "layers": args.layers,
                        "train_max_length": args.train_max_length,
                        "eval_max_length": args.eval_max_length,
                        "eval_per_length": args.eval_per_length,
                        "adaptation": adaptation,
                    }
                )
                bench.run(ctx, get_method(name)())
                table = json.loads(ctx.artifacts["accuracy_table"][0])
                curves.append(
                    np.nanmean(np.array(list(table["curves"].values()), dtype=float), axis=0)
                )
                sums.append(ctx.summary)
                per_task.append(
                    (
                        name,
                        adaptation,
                        seed,
                        {k: v for k, v in ctx.summary.items() if k.startswith("acc_")},
                        ctx.summary["pretrain_loss"],
                    )
                )
            c = np.mean(curves, axis=0)
            agg = {
                k: float(np.mean([s[k] for s in sums]))
                for k in ("heldout_acc_short", "heldout_acc_long", "heldout_acc")
            }
            lines.append(
                f"| {name} | {adaptation} | "
                + " | ".join(f"{v:.2f}" for v in c)
                + f" | {agg['heldout_acc_short']:.3f} | {agg['heldout_acc_long']:.3f} | {agg['heldout_acc']:.3f}"
                + f" | {time.time() - t0:.0f} |"
            )
            print(lines[-1], flush=True)
    lines += [
        "",
        "| method | adaptation | seed | pretrain loss | per held-out task accuracy |",
        "|---|---|---|---|---|",
    ]
    for name, adaptation, seed, accs, loss in per_task:
        lines.append(
            f"| {name} | {adaptation} | {seed} | {loss:.3f} | "
            + ", ".join(f"{k[4:]} {v:.2f}" for k, v in accs.items())
            + " |"
        )
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
