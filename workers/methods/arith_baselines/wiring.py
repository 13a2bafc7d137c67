"""Baseline compressor-tree interconnects: default (in order), random, and greedy timing-driven.

The greedy heuristic is the classic three-greedy timing-driven assignment (Oklobdzija,
Villeger, Liu, IEEE TC 1996), applied stage by stage: in each column the earliest-arriving
signals feed the compressors, the two earliest of each FA triple go to the slow a/b pins and
the latest to the fast carry-in pin, and the latest signals bypass the stage.
"""

from __future__ import annotations

import numpy as np

from workers.benchmarks.arith_circuits.compressor import ColumnLayout, Wiring
from workers.benchmarks.arith_circuits.problem import WiringProblem


def default_wiring(problem: WiringProblem) -> Wiring:
    """Signals connected in the order the tree lists them (the textbook Wallace/Dadda netlist)."""
    return problem.identity()


def random_wiring(problem: WiringProblem, rng: np.random.Generator) -> Wiring:
    return [
        [rng.permutation(h) for h in problem.tree.heights[j]] for j in range(problem.tree.n_stages)
    ]


def greedy_column(layout: ColumnLayout, arrivals: np.ndarray) -> np.ndarray:
    """Timing-driven permutation (slot -> input position) for one column."""
    order = list(np.argsort(arrivals, kind="stable"))
    perm: list[int] = []
    for _ in range(layout.n_fa):
        a, b, late = order[:3]
        order = order[3:]
        perm += [a, b, late]  # latest of the three on the fast ci pin
    for _ in range(layout.n_ha):
        perm += order[:2]
        order = order[2:]
    perm += order  # the latest signals pass through
    return np.asarray(perm, dtype=int)


def greedy_wiring(problem: WiringProblem) -> Wiring:
    wiring, _ = problem.walk(lambda j, c, lay, t: greedy_column(lay, t))
    return wiring
