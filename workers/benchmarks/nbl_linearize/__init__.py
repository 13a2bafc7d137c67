"""Benchmark nbl_linearize (Neural Block Linearization)."""

from workers.benchmarks.nbl_linearize import benchmark  # noqa: F401  (registers the benchmark)
