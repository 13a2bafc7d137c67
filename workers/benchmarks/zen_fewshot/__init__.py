from workers.benchmarks.zen_fewshot import benchmark  # noqa: F401  (registers the benchmark)
