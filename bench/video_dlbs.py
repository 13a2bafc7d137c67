"""DLBS experiments on the small video diffusion model: reward vs NFE budget for every sampler,
lookahead T' vs search budget, more denoising steps vs more search.

    .venv/bin/python -m bench.video_dlbs [--seeds 0 1 2] [--budgets 2 4 8 16 32] [--n-prompts 4]
        [--lookahead 1 2 4 8] [--steps 5 10 20 40] [--steps-nfe 160] [--out docs/video_dlbs.md]

One `video-dlbs` run per seed and experiment with `dlbs-lookahead` as the method and the other
samplers as references, so every sampler sees the same prompts and noise seeds (paired). Means
and 95% confidence intervals are over the (seed, prompt) units; the paired differences compare
samplers on the same unit. The model, reward networks and calibration are trained once and
cached under the data directory (CRUCIBLE_DATA_DIR, default var/data).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict

import numpy as np
import torch

from workers.core import InMemoryRunContext, get_benchmark, get_method

SAMPLERS = ["dlbs-ddim", "dlbs-best-of-n", "dlbs-greedy", "dlbs", "dlbs-lookahead"]


def ci(values) -> tuple[float, float]:
    a = np.asarray(values, dtype=float)
    if len(a) < 2:
        return float(a.mean()), 0.0
    return float(a.mean()), float(1.96 * a.std(ddof=1) / math.sqrt(len(a)))


def fmt(values) -> str:
    m, h = ci(values)
    return f"{m:+.3f} ± {h:.3f}"


def run_experiment(seeds, cfg, method="dlbs-lookahead", method_cfg=None, echo=False):
    rows, summaries, cal = [], [], None
    for seed in seeds:
        ctx = InMemoryRunContext(seed=seed, echo=echo)
        get_benchmark("video-dlbs")(cfg).run(ctx, get_method(method)(method_cfg or {}))
        rows += [{**r, "seed": seed} for r in json.loads(ctx.artifacts["videos.json"][0])]
        summaries.append(ctx.summary)
        cal = json.loads(ctx.artifacts["calibration.json"][0])
        for line in ctx.logs:
            if line.startswith(("x=", "model", "calibration", "pairwise", "trained")):
                print(f"  [seed {seed}] {line}", flush=True)
    return rows, summaries, cal


def table(rows, samplers, xs, x_name, metric="calibrated_reward"):
    by = defaultdict(list)
    for r in rows:
        by[(r["sampler"], r["x"])].append(r)
    head = "| sampler | " + " | ".join(f"{x_name}={x}" for x in xs) + " |"
    lines = [head, "|---" * (len(xs) + 1) + "|"]
    for s in samplers:
        cells = []
        for x in xs:
            rs = by[(s, x)]
            if not rs:
                cells.append("")
                continue
            nfe = np.mean([r["nfe"] for r in rs])
            cells.append(f"{fmt([r[metric] for r in rs])} ({nfe:.0f})")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return lines


def paired(rows, a, b, xs, metric="calibrated_reward"):
    key = lambda r: (r["seed"], r["prompt"], r["x"])  # noqa: E731
    va = {key(r): r[metric] for r in rows if r["sampler"] == a}
    vb = {key(r): r[metric] for r in rows if r["sampler"] == b}
    out = []
    for x in xs:
        d = [va[k] - vb[k] for k in va if k[2] == x and k in vb]
        out.append(fmt(d) if d else "")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--budgets", type=int, nargs="+", default=[2, 4, 8, 16, 32])
    ap.add_argument("--n-prompts", type=int, default=4)
    ap.add_argument("--denoising-steps", type=int, default=10)
    ap.add_argument(
        "--lookahead-steps",
        type=int,
        default=2,
        help="T' of dlbs-lookahead in the budget experiment",
    )
    ap.add_argument("--lookahead", type=int, nargs="*", default=[1, 2, 4, 8])
    ap.add_argument("--lookahead-kb", type=int, default=8)
    ap.add_argument("--steps", type=int, nargs="*", default=[5, 10, 20, 40])
    ap.add_argument("--steps-nfe", type=int, default=160)
    ap.add_argument(
        "--side-seeds",
        type=int,
        nargs="+",
        default=[0],
        help="seeds of the lookahead and steps experiments",
    )
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    t_start = time.time()
    base = {"n_prompts": args.n_prompts, "denoising_steps": args.denoising_steps, "gifs": False}
    la_cfg = {"lookahead_steps": args.lookahead_steps}

    print("budget experiment", flush=True)
    t0 = time.time()
    rows, summaries, cal = run_experiment(
        args.seeds,
        {
            **base,
            "experiment": "budget",
            "budgets": args.budgets,
            "reference_samplers": [s for s in SAMPLERS if s != "dlbs-lookahead"],
        },
        method_cfg=la_cfg,
    )
    t_budget = time.time() - t0
    xs = sorted({r["x"] for r in rows})
    lines = [
        "### Calibrated reward vs NFE budget",
        "",
        f"Budget = KB x {args.denoising_steps} NFE (what best-of-KB costs); every sampler fits inside it "
        f"(DDIM spends {args.denoising_steps} whatever the budget). dlbs-lookahead uses T' = {args.lookahead_steps}. "
        f"Cells: mean ± 95% CI over {len(args.seeds)} seeds x {args.n_prompts} prompts "
        f"= {len(args.seeds) * args.n_prompts} videos, (mean NFE spent).",
        "",
        *table(rows, SAMPLERS, xs, "KB"),
        "",
        "Paired differences of the calibrated reward (same seed, prompt and noise seed):",
        "",
        "| comparison | " + " | ".join(f"KB={x}" for x in xs) + " |",
        "|---" * (len(xs) + 1) + "|",
        *(
            f"| {a} − {b} | " + " | ".join(paired(rows, a, b, xs)) + " |"
            for a, b in (
                ("dlbs-lookahead", "dlbs-best-of-n"),
                ("dlbs-lookahead", "dlbs-greedy"),
                ("dlbs", "dlbs-best-of-n"),
                ("dlbs-lookahead", "dlbs"),
            )
        ),
        "",
        "### Held-out oracle score (ground-truth match, not optimised) vs NFE budget",
        "",
        *table(rows, SAMPLERS, xs, "KB", "oracle_score"),
        "",
        "### Text-consistency accuracy (all four attributes right) vs NFE budget",
        "",
        *table(rows, SAMPLERS, xs, "KB", "text_accuracy"),
        "",
    ]
    rep = cal["report"]
    lines += [
        "### Reward calibration",
        "",
        f"Source: {rep.get('source', '')}; {rep['pairs_train']} training and {rep['pairs_test']} held-out pairs.",
        "",
        "| metric | weight | Spearman with judgement score | held-out pairwise agreement |",
        "|---|---|---|---|",
        *(
            f"| {m} | {e['weight']:+.3f} | {e.get('spearman', float('nan')):+.3f} | {e['pair_accuracy']:.3f} |"
            for m, e in rep["per_metric"].items()
        ),
        f"| **uncalibrated (equal weights)** | | {rep['uncalibrated'].get('spearman', float('nan')):+.3f} | "
        f"{rep['uncalibrated']['pair_accuracy']:.3f} |",
        f"| **calibrated** | | {rep['calibrated'].get('spearman', float('nan')):+.3f} | "
        f"{rep['calibrated']['pair_accuracy']:.3f} |",
        "",
    ]
    t_side = {}
    if args.lookahead:
        print("lookahead experiment", flush=True)
        t0 = time.time()
        la_rows, _, _ = run_experiment(
            args.side_seeds,
            {
                **base,
                "experiment": "lookahead",
                "lookahead_values": args.lookahead,
                "lookahead_kb": args.lookahead_kb,
                "reference_samplers": [],
            },
        )
        t_side["lookahead"] = time.time() - t0
        from workers.methods.dlbs.samplers import plan_beam

        plans = [
            plan_beam(args.denoising_steps, args.lookahead_kb * args.denoising_steps, t)
            for t in args.lookahead
        ]
        lines += [
            f"### Lookahead steps T' vs search budget (fixed budget {args.lookahead_kb * args.denoising_steps} NFE)",
            "",
            f"dlbs-lookahead at each T'; the plan trades candidates (and searched steps) for lookahead. "
            f"Seeds {args.side_seeds} x {args.n_prompts} prompts.",
            "",
            "| T' | beams B | candidates K | searched steps | NFE | calibrated reward | oracle score |",
            "|---|---|---|---|---|---|---|",
        ]
        for t, p in zip(args.lookahead, plans, strict=True):
            rs = [r for r in la_rows if r["x"] == t]
            lines.append(
                f"| {t} | {p.beams} | {p.candidates} | {len(p.search_steps)} | {p.nfe} | "
                f"{fmt([r['calibrated_reward'] for r in rs])} | {fmt([r['oracle_score'] for r in rs])} |"
            )
        lines.append("")
    if args.steps:
        print("steps experiment", flush=True)
        t0 = time.time()
        st_rows, _, _ = run_experiment(
            args.side_seeds,
            {
                **base,
                "experiment": "steps",
                "steps_values": args.steps,
                "steps_nfe": args.steps_nfe,
                "reference_samplers": ["dlbs-ddim", "dlbs-best-of-n", "dlbs"],
            },
            method_cfg=la_cfg,
        )
        t_side["steps"] = time.time() - t0
        lines += [
            f"### More denoising steps vs more search (fixed budget {args.steps_nfe} NFE)",
            "",
            f"x = denoising steps S; search gets the rest of the budget (KB = {args.steps_nfe} / S). "
            f"DDIM spends S. Seeds {args.side_seeds} x {args.n_prompts} prompts.",
            "",
            *table(
                st_rows,
                ["dlbs-ddim", "dlbs-best-of-n", "dlbs", "dlbs-lookahead"],
                sorted(args.steps),
                "S",
            ),
            "",
        ]
    wall = time.time() - t_start
    lines += [
        f"Wall time: budget experiment {t_budget:.0f} s, "
        + ", ".join(f"{k} {v:.0f} s" for k, v in t_side.items())
        + f"; total {wall:.0f} s "
        "(2 shared CPU cores, model/reward/calibration from the cache)."
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        from pathlib import Path

        path = Path(args.out)
        doc = path.read_text() if path.is_file() else ""
        start, end = "<!-- bench:video_dlbs start -->", "<!-- bench:video_dlbs end -->"
        cmd = (
            "    .venv/bin/python -m bench.video_dlbs "
            + " ".join(
                f"--{k.replace('_', '-')} {' '.join(map(str, v)) if isinstance(v, list) else v}"
                for k, v in vars(args).items()
                if k != "out" and v not in ([], None)
            )
            + f" --out {args.out}"
        )
        block = f"{start}\nCommand:\n\n{cmd}\n\n{text}\n{end}"
        if start in doc and end in doc:
            doc = doc[: doc.index(start)] + block + doc[doc.index(end) + len(end) :]
        else:
            doc = doc + ("\n" if doc else "") + block + "\n"
        path.write_text(doc)


if __name__ == "__main__":
    main()
