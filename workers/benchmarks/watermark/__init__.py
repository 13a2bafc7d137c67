"""Watermark benchmark: detection power vs distortion, low- vs higher-entropy, robustness."""

from workers.benchmarks.watermark import benchmark  # noqa: F401  (registers wm_detection)
