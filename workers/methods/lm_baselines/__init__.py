"""Baseline optimizers for lm_pretrain: Adam(W) and SGD with momentum."""

from workers.methods.lm_baselines import plugin  # noqa: F401  (registers the methods)
