"""Multipliers and MAC units: partial products -> compressor tree (with interconnect) -> final adder."""

from __future__ import annotations

from dataclasses import dataclass

from workers.benchmarks.arith_circuits.adders import ADDERS, final_adder
from workers.benchmarks.arith_circuits.cells import CellLibrary, unit_library
from workers.benchmarks.arith_circuits.compressor import (
    CompressorTree,
    Wiring,
    apply_tree,
    make_tree,
)
from workers.benchmarks.arith_circuits.netlist import Netlist

TREES = ("wallace", "dadda")


@dataclass(frozen=True)
class DesignSpec:
    """An unsigned N x N multiplier, or a MAC computing a*b + c modulo 2^(2N)."""

    bits: int
    mac: bool = False
    tree: str = "dadda"
    adder: str = "sklansky"

    def __post_init__(self) -> None:
        if not 2 <= self.bits <= 32:
            raise ValueError(
                f"bits must be in [2, 32] (outputs are simulated as 64-bit words), got {self.bits}"
            )
        if self.tree not in TREES:
            raise ValueError(f"tree must be one of {TREES}, not {self.tree!r}")
        if self.adder not in ADDERS:
            raise ValueError(f"adder must be one of {ADDERS}, not {self.adder!r}")

    @property
    def width(self) -> int:
        return 2 * self.bits

    @property
    def label(self) -> str:
        return f"{'mac' if self.mac else 'mul'}{self.bits}-{self.tree}-{self.adder}"


def partial_products(net: Netlist, spec: DesignSpec) -> list[list[int]]:
    """AND-array partial products a_i & b_k in column i + k; a MAC adds c as one more row."""
    a = net.add_input("a", spec.bits)
    b = net.add_input("b", spec.bits)
    cols: list[list[int]] = [[] for _ in range(spec.width)]
    for i in range(spec.bits):
        for k in range(spec.bits):
            (pp,) = net.add_gate("AND2", a[i], b[k])
            cols[i + k].append(pp)
    if spec.mac:
        c = net.add_input("c", spec.width)
        for col, bit in zip(cols, c, strict=False):
            col.append(bit)
    return cols


def initial_heights(spec: DesignSpec) -> list[int]:
    h = [
        min(c, 2 * spec.bits - 2 - c) + 1 if c <= 2 * spec.bits - 2 else 0
        for c in range(spec.width)
    ]
    return [x + 1 for x in h] if spec.mac else h


def tree_for(spec: DesignSpec) -> CompressorTree:
    return make_tree(spec.tree, initial_heights(spec))


def build(spec: DesignSpec, wiring: Wiring, library: CellLibrary | None = None) -> Netlist:
    net = Netlist(library or unit_library())
    cols = partial_products(net, spec)
    final = apply_tree(net, tree_for(spec), cols, wiring)
    net.set_output("p", final_adder(net, final, spec.adder))
    return net


def initial_arrivals(spec: DesignSpec, library: CellLibrary) -> list[list[float]]:
    """Arrival times of the tree's inputs, in the same order as `partial_products` lists them."""
    t_and = library["AND2"].arc("a", "y")
    cols = [
        [t_and] * h for h in initial_heights(DesignSpec(spec.bits, False, spec.tree, spec.adder))
    ]
    if spec.mac:
        cols = [col + [0.0] for col in cols]
    return cols


def adder_template(final_heights: tuple[int, ...], adder: str, library: CellLibrary) -> Netlist:
    """The final adder alone, with one input bit per final-row signal (bus `x`, column-major)."""
    net = Netlist(library)
    xs = net.add_input("x", sum(final_heights))
    cols, pos = [], 0
    for h in final_heights:
        cols.append(xs[pos : pos + h])
        pos += h
    net.set_output("p", final_adder(net, cols, adder))
    return net
