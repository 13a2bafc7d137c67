"""Mean final normalised regret (95% CI over seeds) of every `cash` method on synthetic and real arms.

    .venv/bin/python -m bench.cash_regret [--seeds 10] [--settings skewed_max,power_xp11,breast_cancer]
                                          [--write-docs]

Every method runs on the same instances (same seeds), so differences are paired. Prints a
Markdown table; --write-docs replaces the marked block in docs/cash.md with it.
"""

from __future__ import annotations

import argparse
import platform
import re
import time
from pathlib import Path

import numpy as np
from scipy import stats

from workers.benchmarks.cash import CashBenchmark
from workers.core import InMemoryRunContext
from workers.methods.bandit_baselines import (
    QoMaxETCMethod,
    QuantileUCBMethod,
    RandomArmMethod,
    RoundRobinMethod,
    UCB1Method,
)
from workers.methods.maxucb import MaxUCBMethod

METHODS = [
    MaxUCBMethod,
    QoMaxETCMethod,
    QuantileUCBMethod,
    UCB1Method,
    RoundRobinMethod,
    RandomArmMethod,
]
SETTINGS = {
    "skewed_max": {"arms": "synthetic", "instance": "skewed_max", "horizon": 200},
    "power_xp11": {"arms": "synthetic", "instance": "power_xp11", "horizon": 500},
    "breast_cancer": {"arms": "real", "dataset": "breast_cancer", "horizon": 100},
    "digits": {"arms": "real", "dataset": "digits", "horizon": 100},
}
DOCS = Path(__file__).resolve().parents[1] / "docs" / "cash.md"
BEGIN, END = "<!-- cash_regret:begin -->", "<!-- cash_regret:end -->"


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% Student-t confidence interval."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return float(x.mean()), float("nan")
    return float(x.mean()), float(stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))


def run_setting(config: dict, seeds: int, data_dir: str) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {}
    bench = CashBenchmark(config)
    for method_cls in METHODS:
        res = out.setdefault(method_cls.name, {key: [] for key in [*TABLES, "best_arm_share"]})
        for seed in range(seeds):
            ctx = InMemoryRunContext(seed=seed, data_dir=data_dir)
            bench.run(ctx, method_cls())
            for key in res:
                res[key].append(ctx.summary[key])
    return out


TABLES = {
    "regret": "Final normalised regret (primary metric), mean ± 95% CI half-width",
    "paper_normalized_loss": "Final paper normalised loss (unit: median first-pull score), mean ± 95% CI",
    "mean_regret": "Anytime: regret averaged over t = 1..T, mean ± 95% CI",
}


def table(results: dict[str, dict], seeds: int) -> str:
    names = list(results)
    lines = []
    for key, caption in TABLES.items():
        lines += [
            f"**{caption}** ({seeds} seeds, Student t; lower is better)",
            "",
            "| method | " + " | ".join(names) + " |",
            "|---|" + "---|" * len(names),
        ]
        for method_cls in METHODS:
            cells = [
                "{:.4f} ± {:.4f}".format(*mean_ci(results[n][method_cls.name][key])) for n in names
            ]
            lines.append(f"| {method_cls.name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "**Mean share of pulls on an arm holding y\\***",
        "",
        "| method | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for method_cls in METHODS:
        cells = [f"{np.mean(results[n][method_cls.name]['best_arm_share']):.2f}" for n in names]
        lines.append(f"| {method_cls.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument(
        "--settings",
        default="skewed_max,power_xp11,breast_cancer",
        help=f"comma-separated subset of {sorted(SETTINGS)}",
    )
    parser.add_argument(
        "--data-dir", default="var/data", help="trace cache root (CRUCIBLE_DATA_DIR)"
    )
    parser.add_argument(
        "--write-docs", action="store_true", help=f"replace the results block in {DOCS}"
    )
    args = parser.parse_args()
    chosen = [s.strip() for s in args.settings.split(",") if s.strip()]
    unknown = set(chosen) - set(SETTINGS)
    if unknown:
        parser.error(f"--settings: unknown {sorted(unknown)}; choose from {sorted(SETTINGS)}")
    results, timings = {}, []
    for name in chosen:
        start = time.perf_counter()
        results[name] = run_setting(SETTINGS[name], args.seeds, args.data_dir)
        timings.append(f"{name} {time.perf_counter() - start:.1f}s")
    settings = "; ".join(f"{n} = {SETTINGS[n]}" for n in chosen)
    text = "\n".join(
        [
            table(results, args.seeds),
            "",
            f"Settings: {settings}. Other config values are the defaults (real arms: 6 model classes, "
            f"N=32 configurations per class, trace seed 0, 30% validation split, accuracy).",
            f"Command: `.venv/bin/python -m bench.cash_regret --seeds {args.seeds} --settings {','.join(chosen)}`; "
            f"wall time per setting (all methods and seeds, trace builds included): {', '.join(timings)}; "
            f"{platform.machine()} CPU, {platform.python_version()}.",
        ]
    )
    print(text)
    if args.write_docs:
        doc = DOCS.read_text()
        if BEGIN not in doc or END not in doc:
            raise SystemExit(f"{DOCS} has no {BEGIN} ... {END} block")
        DOCS.write_text(
            re.sub(
                re.escape(BEGIN) + r".*?" + re.escape(END),
                lambda _: f"{BEGIN}\n{text}\n{END}",
                doc,
                flags=re.S,
            )
        )


if __name__ == "__main__":
    main()
