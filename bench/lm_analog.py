"""Analog-model fidelity vs analog size: logit-distilled analogs vs same-size models trained from scratch.

    .venv/bin/python -m bench.lm_analog [--teacher-path DIR] [--widths 24,48] [--steps 150]
        [--seeds 0 1 2] [--out FILE]

Runs the `analog_fidelity` benchmark for `analog_distill` and `analog_scratch` with the same
seeds (same initialisation and batches for both methods), and writes a Markdown table of
agreement, KL, task-profile and probe Spearman correlations per analog width: the value for one
seed, or the mean and 95% t-interval over several.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

import torch
from scipy import stats as st

from workers.core import InMemoryRunContext, get_benchmark, get_method

KEYS = ("agreement", "kl", "task_spearman", "probe_spearman", "probe_gap")


def mean_ci(xs: list[float]) -> str:
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return "nan"
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return f"{m:.3f}"
    h = st.t.ppf(0.975, len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{m:.3f} +- {h:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teacher-path", default="")
    ap.add_argument("--widths", default="24,48")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--mc-items", type=int, default=30)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    bench = get_benchmark("analog_fidelity")(
        dict(
            teacher_path=args.teacher_path,
            student_widths=tuple(int(w) for w in args.widths.split(",")),
            student_layers=args.layers,
            steps=args.steps,
            mc_items=args.mc_items,
        )
    )
    lines = [
        f"Analog fidelity: teacher {args.teacher_path or 'default tiny Llama'}, analogs {args.layers} layers, "
        f"{args.steps} steps, seeds {args.seeds}"
        + (" (mean +- 95% t-interval)" if len(args.seeds) > 1 else ""),
        "",
        "| method | width | params / teacher | agreement | KL (nats) | task Spearman | probe Spearman | probe gap |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ("analog_distill", "analog_scratch"):
        t0 = time.time()
        per_width: dict[int, list[dict]] = {}
        for seed in args.seeds:
            ctx = InMemoryRunContext(seed=seed)
            bench.run(ctx, get_method(name)())
            art = json.loads(ctx.artifacts["fidelity_vs_size"][0])
            for r in art["rows"]:
                per_width.setdefault(r["width"], []).append(r)
            print(name, seed, f"({time.time() - t0:.0f} s)", flush=True)
        for width, rs in sorted(per_width.items()):
            cells = " | ".join(mean_ci([r[k] for r in rs]) for k in KEYS)
            lines.append(f"| {name} | {width} | {rs[0]['param_ratio']:.3f} | {cells} |")
        print("\n".join(lines[-len(per_width) :]), flush=True)
    lines += [
        "",
        f"Teacher task accuracies (seed {args.seeds[-1]}): "
        + json.dumps({k: round(v, 3) for k, v in art["teacher_tasks"].items()}),
        "Teacher probe balanced accuracies: "
        + json.dumps({k: round(v, 3) for k, v in art["teacher_probes"].items()}),
    ]
    text = "\n".join(lines)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
