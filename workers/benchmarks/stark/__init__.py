"""STARK (Quan et al., NeurIPS 2025 D&B): spatio-temporal reasoning benchmark for LLMs."""

from workers.benchmarks.stark.plugin import StarkBenchmark  # registers the benchmark

__all__ = ["StarkBenchmark"]
