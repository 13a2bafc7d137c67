"""Mellow on synthetic ReasonAQA-style data: the model, the paper's ablations and two baselines.

    .venv/bin/python -m bench.mellow_aqa [--seeds 0 1] [--steps 300] [--only mellow,linear_projection]
                                         [--results var/mellow_bench.json] [--write-docs]

Runs every configuration below on the same data per seed (paired), appends each run's summary
to --results as it finishes (several processes may run disjoint --only lists), and with
--write-docs renders the tables in docs/mellow.md from all results gathered so far:
accuracy per family with 95% Wilson intervals (pooled over seeds), reasoning splits and ID/OOD.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import time
from pathlib import Path

import numpy as np
import torch

from workers.benchmarks.mellow_aqa import MellowAQABenchmark
from workers.benchmarks.mellow_aqa import questions as Q
from workers.benchmarks.mellow_aqa.evaluation import wilson
from workers.core import InMemoryRunContext
from workers.methods.mellow import AudioClassifierMethod, CaptionOnlyMethod, MellowMethod

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "mellow.md"
BEGIN, END = "<!-- mellow_aqa:begin -->", "<!-- mellow_aqa:end -->"
BENCH = {"n_train_clips": 400, "n_train_items": 4000, "n_test_clips": 40, "n_examples": 0}
# name -> (method class, method config, benchmark overrides, what it tests)
CONFIGS = {
    "mellow": (MellowMethod, {}, {}, "Mellow: MLP projection, pre-trained decoder, 70% generated"),
    "linear_projection": (
        MellowMethod,
        {"projection": "linear"},
        {},
        "ablation: linear projection",
    ),
    "random_decoder": (
        MellowMethod,
        {"decoder_init": "random"},
        {},
        "ablation: decoder without LM pre-training",
    ),
    "share_0.3": (MellowMethod, {}, {"synthetic_share": 0.3}, "ablation: 30% generated questions"),
    "share_1.0": (MellowMethod, {}, {"synthetic_share": 1.0}, "ablation: only generated questions"),
    "encoder_scratch": (
        MellowMethod,
        {"encoder_pretrain_steps": 0},
        {},
        "ablation: audio encoder not pre-trained",
    ),
    "caption_only": (CaptionOnlyMethod, {}, {}, "baseline: same LM reading the reference captions"),
    "question_only": (
        CaptionOnlyMethod,
        {"captions": "none"},
        {},
        "baseline: same LM, question alone",
    ),
    "audio_classifier": (
        AudioClassifierMethod,
        {},
        {},
        "baseline: encoder + option classifier, no LM",
    ),
}


def run_one(name: str, seed: int, train: dict, data_dir: str) -> dict:
    cls, mcfg, bcfg, _ = CONFIGS[name]
    ctx = InMemoryRunContext(seed=seed, data_dir=data_dir)
    t0 = time.perf_counter()
    MellowAQABenchmark({**BENCH, **bcfg}).run(ctx, cls({**train, **mcfg}))
    rows = json.loads(ctx.artifacts["accuracy_table"][0])
    return {
        "config": name,
        "seed": seed,
        "seconds": time.perf_counter() - t0,
        "summary": ctx.summary,
        "rows": rows,
        "train": train,
    }


def pooled(results: list[dict], name: str, group: str, key: str) -> tuple[int, int]:
    k = n = 0
    for r in results:
        if r["config"] == name:
            for row in r["rows"]:
                if row["group"] == group and row["name"] == key:
                    k, n = k + row["correct"], n + row["n"]
    return k, n


def cell(k: int, n: int) -> str:
    if n == 0:
        return "-"
    lo, hi = wilson(k, n)
    return f"{k / n:.3f} [{lo:.2f}, {hi:.2f}]"


def tables(results: list[dict]) -> str:
    names = [c for c in CONFIGS if any(r["config"] == c for r in results)]
    seeds = sorted({r["seed"] for r in results})
    steps = sorted({r["train"].get("steps") for r in results})
    lines = [
        f"Seeds {seeds}, fine-tuning steps {steps}, {BENCH['n_train_items']} training items on "
        f"{BENCH['n_train_clips']} clips, {BENCH['n_test_clips']} test clips per split; "
        "accuracy with 95% Wilson intervals over all test questions of the seeds listed "
        f"(measured on {platform.machine()} CPU, torch {torch.__version__}).",
        "",
        "| configuration | what it tests | seeds | overall | understanding | deductive | comparative | ID | OOD | chance | s/run |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in names:
        rs = [r for r in results if r["config"] == c]
        chance = np.mean([r["summary"]["chance_accuracy"] for r in rs])
        secs = np.mean([r["seconds"] for r in rs])
        cols = [cell(*pooled(results, c, "overall", "all"))]
        cols += [
            cell(*pooled(results, c, "reasoning", k))
            for k in ("understanding", "deductive", "comparative")
        ]
        cols += [cell(*pooled(results, c, "split", k)) for k in ("id", "ood")]
        seeds_c = ",".join(str(r["seed"]) for r in sorted(rs, key=lambda r: r["seed"]))
        lines.append(
            f"| {c} | {CONFIGS[c][3]} | {seeds_c} | "
            + " | ".join(cols)
            + f" | {chance:.3f} | {secs:.0f} |"
        )
    lines += [
        "",
        "Accuracy per question family (the seeds above pooled, ID and OOD pooled):",
        "",
        "| family (category) | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for fam in (*Q.SINGLE_FAMILIES, *Q.PAIR_FAMILIES):
        n = pooled(results, names[0], "family", fam)[1]
        lines.append(
            f"| {fam} ({Q.FAMILY_CATEGORY[fam]}, n={n}) | "
            + " | ".join(cell(*pooled(results, c, "family", fam)) for c in names)
            + " |"
        )
    return "\n".join(lines)


def write_docs(text: str) -> None:
    doc = DOCS.read_text()
    block = f"{BEGIN}\n{text}\n{END}"
    DOCS.write_text(
        re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, doc, flags=re.S)
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--only", default=",".join(CONFIGS), help="comma-separated configuration names")
    ap.add_argument("--results", default=str(ROOT / "var" / "mellow_bench.json"))
    ap.add_argument("--data-dir", default=str(ROOT / "var" / "data"))
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--no-run", action="store_true", help="only render the tables from --results")
    ap.add_argument(
        "--merge",
        nargs="*",
        default=[],
        help="result files of parallel runs to merge into --results",
    )
    args = ap.parse_args()
    torch.set_num_threads(1)  # the platform's CPU runs use one thread each
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(path.read_text()) if path.is_file() else []
    for extra in args.merge:
        seen = {(r["config"], r["seed"], json.dumps(r["train"], sort_keys=True)) for r in results}
        for r in json.loads(Path(extra).read_text()):
            if (r["config"], r["seed"], json.dumps(r["train"], sort_keys=True)) not in seen:
                results.append(r)
    if args.merge:
        path.write_text(json.dumps(results))
    train = {"steps": args.steps, "batch_size": args.batch_size, "lr": args.lr}
    if not args.no_run:
        for seed in args.seeds:
            for name in args.only.split(","):
                r = run_one(name, seed, train, args.data_dir)
                print(
                    f"{name} seed {seed}: accuracy {r['summary']['accuracy']:.3f} "
                    f"(chance {r['summary']['chance_accuracy']:.3f}) in {r['seconds']:.0f} s",
                    flush=True,
                )
                current = json.loads(path.read_text()) if path.is_file() else []
                current = [
                    x
                    for x in current
                    if (x["config"], x["seed"], x["train"]) != (name, seed, train)
                ]
                path.write_text(json.dumps(current + [r]))
        results = json.loads(path.read_text())
    text = tables(results)
    print(text)
    if args.write_docs:
        write_docs(text)


if __name__ == "__main__":
    main()
