"""What a wiring method receives: one design point (tree + final adder) and an exact evaluator."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from workers.benchmarks.arith_circuits.cells import CellLibrary, unit_library
from workers.benchmarks.arith_circuits.compressor import (
    Chooser,
    CompressorTree,
    Wiring,
    check_wiring,
    propagate,
)
from workers.benchmarks.arith_circuits.design import (
    DesignSpec,
    adder_template,
    initial_arrivals,
    tree_for,
)
from workers.benchmarks.arith_circuits.netlist import Netlist


@dataclass
class WiringProblem:
    """Choose the compressor-tree interconnect of `spec`; `delay(wiring)` is the exact STA delay."""

    spec: DesignSpec
    library: CellLibrary = field(default_factory=unit_library)

    @cached_property
    def tree(self) -> CompressorTree:
        return tree_for(self.spec)

    @cached_property
    def arrival0(self) -> list[list[float]]:
        return initial_arrivals(self.spec, self.library)

    @cached_property
    def adder(self) -> Netlist:
        return adder_template(self.tree.heights[-1], self.spec.adder, self.library)

    def walk(self, chooser: Chooser) -> tuple[Wiring, list[list[float]]]:
        """Stage-by-stage exact timing, with `chooser(j, c, layout, arrivals)` picking each permutation."""
        return propagate(self.tree, self.arrival0, self.library, chooser)

    def delay(self, wiring: Wiring) -> float:
        check_wiring(self.tree, wiring)
        _, final = self.walk(lambda j, c, lay, t: wiring[j][c])
        flat = [x for col in final for x in col]
        t = self.adder.arrival_times({"x": flat})
        return float(max(t[s] for s in self.adder.outputs["p"]))

    def identity(self) -> Wiring:
        return [[np.arange(h) for h in self.tree.heights[j]] for j in range(self.tree.n_stages)]
