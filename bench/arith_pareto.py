"""Area-delay Pareto hypervolume of every wiring method, side by side, through the platform benchmark.

    .venv/bin/python -m bench.arith_pareto --bits 8 --units multiplier mac
    .venv/bin/python -m bench.arith_pareto --bits 16 32 --das-steps 20 --adders ripple sklansky

Writes a Markdown table (stdout, and --out FILE if given). Units are the normalised cell
library's (see workers/benchmarks/arith_circuits/cells.py), not ps / um^2.
"""

from __future__ import annotations

import argparse
import json
import time

from workers.core import InMemoryRunContext, get_benchmark, get_method


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--bits", type=int, nargs="+", default=[8])
    ap.add_argument("--units", nargs="+", default=["multiplier"], choices=["multiplier", "mac"])
    ap.add_argument(
        "--adders", nargs="+", default=["ripple", "sklansky", "kogge_stone", "brent_kung"]
    )
    ap.add_argument("--das-steps", type=int, default=40)
    ap.add_argument("--random-tries", type=int, default=10)
    ap.add_argument(
        "--random-vectors", type=int, default=2000, help="test vectors per design above 8 bits"
    )
    ap.add_argument(
        "--iverilog", action="store_true", help="also run Icarus on every design (slow)"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # tiny tensors: threads only add contention
    methods = [
        ("arith-default-wiring", {}, "default wiring"),
        (
            "arith-random-wiring",
            {"tries": args.random_tries},
            f"random (best of {args.random_tries})",
        ),
        ("arith-greedy-wiring", {}, "greedy timing-driven"),
        (
            "arith-das",
            {"steps": args.das_steps, "init": "default"},
            f"Arith-DAS ({args.das_steps} steps, default init)",
        ),
        (
            "arith-das",
            {"steps": args.das_steps, "init": "greedy"},
            f"Arith-DAS ({args.das_steps} steps, greedy init)",
        ),
    ]
    lines = [
        "| unit | bits | method | hypervolume | HV vs default | min delay | mean delay | min area | errors | vectors/design | wiring time (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for unit in args.units:
        for bits in args.bits:
            cfg = {
                "bits": bits,
                "unit": unit,
                "adders": args.adders,
                "iverilog": args.iverilog,
                "random_vectors": args.random_vectors,
            }
            base = None
            for name, mcfg, label in methods:
                ctx = InMemoryRunContext(seed=args.seed)
                t0 = time.perf_counter()
                get_benchmark("arith-multiplier")(cfg).run(ctx, get_method(name)(mcfg))
                s = ctx.summary
                base = s["hypervolume"] if base is None else base

                nvec = json.loads(ctx.artifacts["designs.json"][0])["designs"][0]["vectors"]
                lines.append(
                    f"| {unit} | {bits} | {label} | {s['hypervolume']:.1f} | "
                    f"{100 * (s['hypervolume'] / base - 1):+.2f}% | {s['min_delay']:.2f} | "
                    f"{s['mean_delay']:.2f} | {s['min_area']:.0f} | {int(s['functional_errors'])} | "
                    f"{nvec} | {s['wire_seconds']:.1f} |"
                )
                print(lines[-1], f"(run {time.perf_counter() - t0:.1f}s)", flush=True)
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(table + "\n")
    return table


if __name__ == "__main__":
    main()
