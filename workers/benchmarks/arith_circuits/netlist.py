"""Gate-level netlist (a DAG of cells), its bit-level simulator, static timing and area.

Signals are integers; signal 0 is the constant 0. Gates are kept in creation order, which
the builders guarantee to be topological, so simulation and timing are one forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from workers.benchmarks.arith_circuits.cells import CellLibrary

CONST0 = 0


@dataclass
class Gate:
    cell: str
    ins: tuple[int, ...]
    outs: tuple[int, ...]


@dataclass
class Netlist:
    """A combinational circuit. `inputs`/`outputs` map a bus name to its bit signals (LSB first)."""

    library: CellLibrary
    n_signals: int = 1  # signal 0 is the constant 0
    gates: list[Gate] = field(default_factory=list)
    inputs: dict[str, list[int]] = field(default_factory=dict)
    outputs: dict[str, list[int]] = field(default_factory=dict)

    def new_signal(self) -> int:
        self.n_signals += 1
        return self.n_signals - 1

    def add_input(self, name: str, width: int) -> list[int]:
        if name in self.inputs:
            raise ValueError(f"input bus {name!r} already exists")
        bits = [self.new_signal() for _ in range(width)]
        self.inputs[name] = bits
        return bits

    def add_gate(self, cell: str, *ins: int) -> tuple[int, ...]:
        spec = self.library[cell]
        if len(ins) != len(spec.inputs):
            raise ValueError(f"cell {cell} takes {len(spec.inputs)} inputs, got {len(ins)}")
        for s in ins:
            if not 0 <= s < self.n_signals:
                raise ValueError(f"cell {cell}: input signal {s} does not exist yet")
        outs = tuple(self.new_signal() for _ in spec.outputs)
        self.gates.append(Gate(cell, tuple(ins), outs))
        return outs

    def set_output(self, name: str, bits: list[int]) -> None:
        self.outputs[name] = list(bits)

    # -- evaluation ------------------------------------------------------------------------
    def area(self) -> float:
        return float(sum(self.library[g.cell].area for g in self.gates))

    def cell_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for g in self.gates:
            counts[g.cell] = counts.get(g.cell, 0) + 1
        return counts

    def arrival_times(self, input_arrival: dict[str, list[float]] | None = None) -> np.ndarray:
        """Static timing analysis: latest arrival time of every signal (max over timing arcs)."""
        t = np.zeros(self.n_signals)
        for name, bits in (input_arrival or {}).items():
            t[self.inputs[name]] = bits
        for g in self.gates:
            spec = self.library[g.cell]
            for pin_out, s_out in zip(spec.outputs, g.outs, strict=False):
                t[s_out] = max(
                    t[s_in] + spec.delay[(pin_in, pin_out)]
                    for pin_in, s_in in zip(spec.inputs, g.ins, strict=False)
                )
        return t

    def delay(self, input_arrival: dict[str, list[float]] | None = None) -> float:
        t = self.arrival_times(input_arrival)
        return float(max(t[s] for bits in self.outputs.values() for s in bits))

    def simulate(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Bit-level simulation of many vectors at once.

        `values[name]` is an unsigned integer array (one entry per test vector); returns each
        output bus as an array of Python-int-free uint64 words (buses wider than 64 bits raise).
        """
        n = None
        sig: list[np.ndarray | None] = [None] * self.n_signals
        for name, bits in self.inputs.items():
            if name not in values:
                raise ValueError(f"simulate: missing value for input bus {name!r}")
            v = np.asarray(values[name], dtype=np.uint64)
            n = v.shape[0] if n is None else n
            if v.shape[0] != n:
                raise ValueError("simulate: all input buses need the same number of vectors")
            for i, s in enumerate(bits):
                sig[s] = ((v >> np.uint64(i)) & np.uint64(1)).astype(bool)
        if n is None:
            raise ValueError("simulate: netlist has no inputs")
        sig[CONST0] = np.zeros(n, dtype=bool)
        for g in self.gates:
            x = [sig[s] for s in g.ins]
            if g.cell == "AND2":
                res = (x[0] & x[1],)
            elif g.cell == "OR2":
                res = (x[0] | x[1],)
            elif g.cell == "XOR2":
                res = (x[0] ^ x[1],)
            elif g.cell == "AO21":
                res = ((x[0] & x[1]) | x[2],)
            elif g.cell == "HA":
                res = (x[0] ^ x[1], x[0] & x[1])
            elif g.cell == "FA":
                res = (x[0] ^ x[1] ^ x[2], (x[0] & x[1]) | (x[2] & (x[0] ^ x[1])))
            else:
                raise ValueError(f"simulate: no behaviour for cell {g.cell!r}")
            for s, r in zip(g.outs, res, strict=False):
                sig[s] = r
        out: dict[str, np.ndarray] = {}
        for name, bits in self.outputs.items():
            if len(bits) > 64:
                raise ValueError(f"simulate: output bus {name!r} is wider than 64 bits")
            word = np.zeros(n, dtype=np.uint64)
            for i, s in enumerate(bits):
                word |= sig[s].astype(np.uint64) << np.uint64(i)
            out[name] = word
        return out
