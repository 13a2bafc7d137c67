from workers.benchmarks.admn_multimodal import benchmark  # noqa: F401  (registers the benchmark)
