"""Video DLBS benchmark: inference-time latent search for a text-to-video diffusion model."""

from workers.benchmarks.video_dlbs import benchmark  # noqa: F401  (registers the benchmark)
