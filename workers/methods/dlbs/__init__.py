"""Diffusion latent beam search and its baselines (library in `samplers.py`)."""

from workers.methods.dlbs import plugin  # noqa: F401  (registers the methods)
