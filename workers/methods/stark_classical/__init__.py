"""Classical first-principles solvers for STARK tiers 1 and 2 (usable as plain functions)."""

from workers.methods.stark_classical.plugin import StarkClassical  # registers the method

__all__ = ["StarkClassical"]
