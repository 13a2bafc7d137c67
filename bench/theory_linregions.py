"""Linear-region counting: run time as networks grow, and how often the definitions disagree.

    .venv/bin/python -m bench.theory_linregions [--depths 1 2] [--widths 2 3 4 5 6] [--nets 3]
                                                [--bruteforce-max 12] [--html runtime.html]

For each (depth, width) it draws `nets` random He-initialised networks on [-3, 3]^2 and times
the exact incremental counter, the exact brute-force counter (up to --bruteforce-max neurons)
and the grid estimate, side by side (timed without the convex-piece step, which only the exact
counters have and which is reported as counts); then prints the counts per definition of the hand-built
examples. With --html it writes the log-scale Plotly run-time plot.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from workers.methods.linregions.examples import EXAMPLES
from workers.methods.linregions.network import ReLUNetwork
from workers.methods.linregions.regions import DEFINITIONS, count_linear_regions
from workers.methods.linregions.sampling import grid_counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--depths", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--widths", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    ap.add_argument("--nets", type=int, default=3)
    ap.add_argument("--dim", type=int, default=2)
    ap.add_argument("--box", type=float, default=3.0)
    ap.add_argument("--bruteforce-max", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--html", default="")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        "| depth | width | neurons | full-dim | non-empty | convex (min cover) | connected | distinct affine | "
        "nets where defs differ | incremental s | LPs | brute force s | LPs | grid s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    series: dict[str, list[float]] = {}
    sizes: dict[str, list[int]] = {}
    for depth in args.depths:
        for w in args.widths:
            rows = []
            for _ in range(args.nets):
                net = ReLUNetwork.random(args.dim, [w] * depth, rng)
                inc = count_linear_regions(
                    net, args.box, "incremental"
                )  # all definitions incl. convex
                timed = count_linear_regions(
                    net, args.box, "incremental", convex=False
                )  # same work as brute force
                bf_s = bf_lp = float("nan")
                if net.n_neurons <= args.bruteforce_max:
                    bf = count_linear_regions(net, args.box, "bruteforce", convex=False)
                    assert (bf.nonempty, bf.full_dim) == (inc.nonempty, inc.full_dim)
                    bf_s, bf_lp = bf.seconds, bf.n_lp
                t = time.perf_counter()
                if args.dim <= 3:
                    grid_counts(net, args.box, 300)
                grid_s = time.perf_counter() - t
                counts = [getattr(inc, k) for k in DEFINITIONS]
                rows.append(
                    counts
                    + [len(set(counts) - {-1}) > 1, timed.seconds, timed.n_lp, bf_s, bf_lp, grid_s]
                )
            m = np.array(rows, dtype=float)
            mean = m.mean(axis=0)
            n = depth * w
            print(
                f"| {depth} | {w} | {n} | {mean[1]:.1f} | {mean[0]:.1f} | {mean[3]:.1f} | {mean[4]:.1f} | "
                f"{mean[5]:.1f} | {int(m[:, 6].sum())}/{args.nets} | {mean[7]:.3f} | {mean[8]:.0f} | "
                f"{mean[9]:.3f} | {mean[10]:.0f} | {mean[11]:.3f} |",
                flush=True,
            )
            for name, val in (
                ("incremental", mean[7]),
                ("bruteforce", mean[9]),
                ("grid", mean[11]),
            ):
                if np.isfinite(val):
                    key = f"{name} (depth {depth})"
                    series.setdefault(key, []).append(val)
                    sizes.setdefault(key, []).append(n)
    print("\n| example | " + " | ".join(DEFINITIONS) + " |")
    print("|---|" + "---|" * len(DEFINITIONS))
    for name, build in EXAMPLES.items():
        c = count_linear_regions(build(), 3.0)
        print(f"| {name} | " + " | ".join(str(getattr(c, k)) for k in DEFINITIONS) + " |")
    if args.html:
        import plotly.graph_objects as go

        fig = go.Figure()
        for key, secs in series.items():
            fig.add_trace(go.Scatter(x=sizes[key], y=secs, mode="lines+markers", name=key))
        fig.update_layout(
            yaxis_type="log", xaxis_title="hidden neurons", yaxis_title="seconds per network"
        )
        fig.write_html(args.html, include_plotlyjs="cdn")


if __name__ == "__main__":
    main()
