"""Analog models (Upadhyay et al. 2025): distillation, fidelity metrics, probes, methods."""

from workers.methods.analog import plugin  # noqa: F401  (registers the methods)
