"""Arith-DAS benchmark: multipliers and MACs as compressor-tree DAGs, with area/delay models and simulators."""

from workers.benchmarks.arith_circuits import benchmark  # noqa: F401  (registers the benchmark)
