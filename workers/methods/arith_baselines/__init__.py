"""Interconnect baselines for the Arith-DAS benchmark; the heuristics live in `wiring.py`."""

from workers.methods.arith_baselines import plugin  # noqa: F401  (registers the methods)
