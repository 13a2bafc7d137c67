"""The `mellow_aqa` benchmark: ReasonAQA-style audio question answering (Deshmukh et al. 2025)."""

from workers.benchmarks.mellow_aqa.benchmark import MellowAQABenchmark, MellowAQAConfig
from workers.benchmarks.mellow_aqa.items import AQAItem
from workers.benchmarks.mellow_aqa.synth import ClipSpec, render, sample_clip

__all__ = ["AQAItem", "ClipSpec", "MellowAQABenchmark", "MellowAQAConfig", "render", "sample_clip"]
