"""Analog-model fidelity vs analog size: logit-distilled analogs vs same-size models trained from scratch.

    .venv/bin/python -m bench.lm_analog [--teacher-path DIR] [--widths 24,48] [--steps 150] [--out FILE]

Runs the `analog_fidelity` benchmark for `analog_distill` and `analog_scratch` with the same
seed (same batches), and writes a Markdown table of agreement, KL, task-profile and probe
Spearman correlations per analog width.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from workers.core import InMemoryRunContext, get_benchmark, get_method


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teacher-path", default="")
    ap.add_argument("--widths", default="24,48")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--mc-items", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
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
        f"{args.steps} steps, seed {args.seed}",
        "",
        "| method | width | params / teacher | agreement | KL (nats) | task Spearman | probe Spearman | probe gap |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ("analog_distill", "analog_scratch"):
        t0 = time.time()
        ctx = InMemoryRunContext(seed=args.seed)
        bench.run(ctx, get_method(name)())
        art = json.loads(ctx.artifacts["fidelity_vs_size"][0])
        for r in art["rows"]:
            lines.append(
                f"| {name} | {r['width']} | {r['param_ratio']:.3f} | {r['agreement']:.3f} | {r['kl']:.3f} | "
                f"{r['task_spearman']:.2f} | {r['probe_spearman']:.2f} | {r['probe_gap']:.3f} |"
            )
        print("\n".join(lines[-len(art["rows"]) :]), f"({time.time() - t0:.0f} s)", flush=True)
    lines += [
        "",
        "Teacher task accuracies: "
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
