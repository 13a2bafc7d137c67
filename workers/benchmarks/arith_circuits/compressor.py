"""Partial-product generation and compressor trees (Wallace, Dadda) with explicit interconnect.

A compressor tree is a sequence of stages. In stage j, column c holds `heights[j][c]` signals
(its input *positions*) and `alloc[j][c] = (n_fa, n_ha)` compressors. Its *slots* are laid out as
FA0.a, FA0.b, FA0.ci, FA1.a, ..., HA0.a, HA0.b, ..., then pass-through slots. The interconnect
of (j, c) is a permutation `perm` with `perm[slot] = input position`: that is the edge set the
Arith-DAS search optimises. Stage j+1's column c lists pass-throughs (slot order), FA sums, HA
sums, then the carries of column c-1 (FA then HA); carries out of the top column are dropped
(they are zero for a multiplier; a MAC wraps modulo 2^(2N)).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workers.benchmarks.arith_circuits.cells import CellLibrary
from workers.benchmarks.arith_circuits.netlist import Netlist

DADDA_SEQUENCE = (2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 94)


@dataclass(frozen=True)
class ColumnLayout:
    n_in: int
    n_fa: int
    n_ha: int

    @property
    def n_pass(self) -> int:
        return self.n_in - 3 * self.n_fa - 2 * self.n_ha

    def slot_pins(self) -> list[tuple[str, int, str]]:
        """(kind, compressor index, pin) for every slot, in slot order."""
        pins = [("FA", k, p) for k in range(self.n_fa) for p in ("a", "b", "ci")]
        pins += [("HA", k, p) for k in range(self.n_ha) for p in ("a", "b")]
        pins += [("PASS", k, "") for k in range(self.n_pass)]
        return pins


@dataclass(frozen=True)
class CompressorTree:
    width: int
    heights: tuple[tuple[int, ...], ...]  # heights[j][c] for j = 0..n_stages (last: final rows)
    alloc: tuple[tuple[tuple[int, int], ...], ...]  # alloc[j][c] = (n_fa, n_ha)
    kind: str = ""

    @property
    def n_stages(self) -> int:
        return len(self.alloc)

    def layout(self, j: int, c: int) -> ColumnLayout:
        n_fa, n_ha = self.alloc[j][c]
        return ColumnLayout(self.heights[j][c], n_fa, n_ha)

    def counts(self) -> tuple[int, int]:
        fa = sum(a[0] for stage in self.alloc for a in stage)
        ha = sum(a[1] for stage in self.alloc for a in stage)
        return fa, ha


def _next_heights(h: list[int], alloc: list[tuple[int, int]]) -> list[int]:
    width = len(h)
    out = []
    for c in range(width):
        n_fa, n_ha = alloc[c]
        carries = sum(alloc[c - 1]) if c > 0 else 0
        out.append(h[c] - 2 * n_fa - n_ha + carries)
    return out


def wallace_tree(heights0: list[int]) -> CompressorTree:
    """Wallace reduction: as early as possible, every column uses floor(h/3) FAs and an HA if h%3 == 2."""
    h, heights, allocs = list(heights0), [tuple(heights0)], []
    while max(h) > 2:
        alloc = [(x // 3, 1 if x % 3 == 2 else 0) for x in h]
        h = _next_heights(h, alloc)
        allocs.append(tuple(alloc))
        heights.append(tuple(h))
    return CompressorTree(len(h), tuple(heights), tuple(allocs), "wallace")


def dadda_tree(heights0: list[int]) -> CompressorTree:
    """Dadda reduction: stage targets 2, 3, 4, 6, 9, ...; compress only what exceeds the target."""
    h, heights, allocs = list(heights0), [tuple(heights0)], []
    while max(h) > 2:
        target = max(d for d in DADDA_SEQUENCE if d < max(h))
        alloc: list[tuple[int, int]] = []
        for c, x in enumerate(h):
            carries = sum(alloc[c - 1]) if c > 0 else 0
            n_fa = n_ha = 0
            while x - 2 * n_fa - n_ha + carries > target:
                if x - 2 * n_fa - n_ha + carries - target >= 2 and x - 3 * n_fa - 2 * n_ha >= 3:
                    n_fa += 1
                elif x - 3 * n_fa - 2 * n_ha >= 2:
                    n_ha += 1
                else:
                    raise RuntimeError(f"dadda: column {c} cannot reach height {target}")
            alloc.append((n_fa, n_ha))
        h = _next_heights(h, alloc)
        allocs.append(tuple(alloc))
        heights.append(tuple(h))
    return CompressorTree(len(h), tuple(heights), tuple(allocs), "dadda")


def make_tree(kind: str, heights0: list[int]) -> CompressorTree:
    if kind == "wallace":
        return wallace_tree(heights0)
    if kind == "dadda":
        return dadda_tree(heights0)
    raise ValueError(f"tree kind must be 'wallace' or 'dadda', not {kind!r}")


Wiring = list[list[np.ndarray]]  # wiring[j][c] = perm (slot -> input position)
Chooser = Callable[[int, int, ColumnLayout, np.ndarray], np.ndarray]


def check_wiring(tree: CompressorTree, wiring: Wiring) -> None:
    if len(wiring) != tree.n_stages:
        raise ValueError(f"wiring has {len(wiring)} stages, the tree has {tree.n_stages}")
    for j in range(tree.n_stages):
        if len(wiring[j]) != tree.width:
            raise ValueError(
                f"wiring stage {j} has {len(wiring[j])} columns, expected {tree.width}"
            )
        for c in range(tree.width):
            perm = np.asarray(wiring[j][c])
            if sorted(perm.tolist()) != list(range(tree.heights[j][c])):
                raise ValueError(
                    f"wiring[{j}][{c}] is not a permutation of {tree.heights[j][c]} positions"
                )


def propagate(
    tree: CompressorTree, arrival0: list[list[float]], library: CellLibrary, chooser: Chooser
) -> tuple[Wiring, list[list[float]]]:
    """Walk the stages with exact (max) timing, asking `chooser` for each column's permutation.

    Used by the wiring heuristics, which decide stage by stage from the arrival times of the
    signals they are about to connect. Returns the wiring and the final columns' arrival times.
    """
    fa, ha = library["FA"], library["HA"]
    t = [list(col) for col in arrival0]
    wiring: Wiring = []
    for j in range(tree.n_stages):
        stage_perm, nxt = [], [[] for _ in range(tree.width)]
        carries: list[list[float]] = [[] for _ in range(tree.width + 1)]
        for c in range(tree.width):
            lay = tree.layout(j, c)
            perm = np.asarray(chooser(j, c, lay, np.asarray(t[c], dtype=float)), dtype=int)
            stage_perm.append(perm)
            x = [t[c][p] for p in perm]
            sums, cos = [], []
            for k in range(lay.n_fa):
                pins = dict(zip(("a", "b", "ci"), x[3 * k : 3 * k + 3], strict=False))
                sums.append(max(pins[p] + fa.arc(p, "s") for p in pins))
                cos.append(max(pins[p] + fa.arc(p, "co") for p in pins))
            base = 3 * lay.n_fa
            for k in range(lay.n_ha):
                pins = dict(zip(("a", "b"), x[base + 2 * k : base + 2 * k + 2], strict=False))
                sums.append(max(pins[p] + ha.arc(p, "s") for p in pins))
                cos.append(max(pins[p] + ha.arc(p, "co") for p in pins))
            nxt[c] = x[base + 2 * lay.n_ha :] + sums
            carries[c + 1] = cos
        for c in range(tree.width):
            nxt[c] = nxt[c] + carries[c]
        wiring.append(stage_perm)
        t = nxt
    return wiring, t


def apply_tree(
    net: Netlist, tree: CompressorTree, columns: list[list[int]], wiring: Wiring
) -> list[list[int]]:
    """Instantiate the compressors with the given interconnect; return the final columns' signals."""
    check_wiring(tree, wiring)
    cols = [list(col) for col in columns]
    for j in range(tree.n_stages):
        nxt: list[list[int]] = [[] for _ in range(tree.width)]
        carries: list[list[int]] = [[] for _ in range(tree.width + 1)]
        for c in range(tree.width):
            lay = tree.layout(j, c)
            if len(cols[c]) != lay.n_in:
                raise RuntimeError(
                    f"stage {j} column {c}: {len(cols[c])} signals, layout says {lay.n_in}"
                )
            x = [cols[c][p] for p in wiring[j][c]]
            sums, cos = [], []
            for k in range(lay.n_fa):
                s, co = net.add_gate("FA", *x[3 * k : 3 * k + 3])
                sums.append(s)
                cos.append(co)
            base = 3 * lay.n_fa
            for k in range(lay.n_ha):
                s, co = net.add_gate("HA", *x[base + 2 * k : base + 2 * k + 2])
                sums.append(s)
                cos.append(co)
            nxt[c] = x[base + 2 * lay.n_ha :] + sums
            carries[c + 1] = cos
        for c in range(tree.width):
            nxt[c] = nxt[c] + carries[c]
        cols = nxt
    return cols
