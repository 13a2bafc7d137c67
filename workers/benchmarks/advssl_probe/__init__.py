from workers.benchmarks.advssl_probe import benchmark  # noqa: F401  (registers the benchmark)
