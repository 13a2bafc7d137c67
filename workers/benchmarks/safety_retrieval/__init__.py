"""Retrieval-induced safety degradation benchmark (Yu, Stroebl, Yang, Papakyriakopoulos 2025)."""

from workers.benchmarks.safety_retrieval.plugin import SafetyRetrieval  # registers the benchmark

__all__ = ["SafetyRetrieval"]
