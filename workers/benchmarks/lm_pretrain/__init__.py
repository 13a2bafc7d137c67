"""Benchmark lm_pretrain (small Llama pre-training; SinkGD vs Adam/SGD/SWAN)."""

from workers.benchmarks.lm_pretrain import benchmark  # noqa: F401  (registers the benchmark)
