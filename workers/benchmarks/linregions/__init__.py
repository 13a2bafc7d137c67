"""Benchmark: counting linear regions of ReLU networks per definition (Stargalla et al.)."""

from workers.benchmarks.linregions import plugin  # noqa: F401  (registers the benchmark)
