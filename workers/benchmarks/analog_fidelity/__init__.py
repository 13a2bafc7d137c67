"""Benchmark analog_fidelity (analog models, Upadhyay et al. 2025)."""

from workers.benchmarks.analog_fidelity import benchmark  # noqa: F401  (registers the benchmark)
