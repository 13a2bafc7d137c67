"""Baselines for the FastSVERL benchmark (per-state sampling / enumeration estimators in `sampling.py`)."""

from workers.methods.sverl_baselines import plugin  # noqa: F401  (registers the methods)
