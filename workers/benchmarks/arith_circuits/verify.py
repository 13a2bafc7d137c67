"""Functional correctness: exhaustive (small widths) or random-vector checks of a multiplier/MAC."""

from __future__ import annotations

import numpy as np

from workers.benchmarks.arith_circuits.design import DesignSpec
from workers.benchmarks.arith_circuits.netlist import Netlist


def test_vectors(
    spec: DesignSpec, n_random: int, rng: np.random.Generator, exhaustive_max_bits: int = 8
) -> tuple[dict[str, np.ndarray], np.ndarray, bool]:
    """Inputs and expected outputs; exhaustive over (a, b) when bits <= exhaustive_max_bits.

    For an exhaustive MAC check, c takes random values (all 2^(4N) (a, b, c) triples are too
    many); the returned flag says whether (a, b) was enumerated exhaustively.
    """
    n = spec.bits
    exhaustive = n <= exhaustive_max_bits
    if exhaustive:
        grid = np.arange(1 << n, dtype=np.uint64)
        a, b = np.repeat(grid, 1 << n), np.tile(grid, 1 << n)
    else:
        a = rng.integers(0, 1 << n, size=n_random, dtype=np.uint64)
        b = rng.integers(0, 1 << n, size=n_random, dtype=np.uint64)
        # always include the corners, where carry chains are longest
        corners = np.array([0, 1, (1 << n) - 1], dtype=np.uint64)
        a = np.concatenate([np.repeat(corners, 3), a])
        b = np.concatenate([np.tile(corners, 3), b])
    vectors = {"a": a, "b": b}
    mask = np.uint64((1 << (2 * n)) - 1) if 2 * n < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    expected = (a * b) & mask  # uint64 wraps modulo 2^64, which equals 2^(2N) when N = 32
    if spec.mac:
        hi = np.uint64(1 << (2 * n)) if 2 * n < 64 else None
        c = rng.integers(
            0,
            hi if hi is not None else np.iinfo(np.uint64).max,
            size=len(a),
            dtype=np.uint64,
            endpoint=hi is None,
        )
        vectors["c"] = c
        expected = (expected + c) & mask
    return vectors, expected, exhaustive


def count_errors(net: Netlist, vectors: dict[str, np.ndarray], expected: np.ndarray) -> int:
    got = net.simulate(vectors)["p"]
    return int(np.count_nonzero(got != expected))
