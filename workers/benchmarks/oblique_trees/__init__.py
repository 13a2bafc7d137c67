from workers.benchmarks.oblique_trees import benchmark  # noqa: F401  (registers the benchmarks)
