from workers.benchmarks.probit_predictives import benchmark  # noqa: F401  (registers the benchmark)
