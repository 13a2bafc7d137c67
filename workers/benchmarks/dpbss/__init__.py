"""Benchmark: support recovery of differentially private best-subset selection (Prastakos et al.)."""

from workers.benchmarks.dpbss import plugin  # noqa: F401  (registers the benchmark)
