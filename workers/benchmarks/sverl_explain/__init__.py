"""FastSVERL benchmark: gridworld/Mastermind agents explained with Shapley values, against exact enumeration."""

from workers.benchmarks.sverl_explain import benchmark  # noqa: F401  (registers the benchmark)
