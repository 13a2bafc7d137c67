"""Baselines for the oblique-tree benchmarks (CART, random forest, soft decision tree)."""

from workers.methods.oblique_baselines import plugin  # noqa: F401  (registers the methods)
from workers.methods.oblique_baselines.soft_tree import (
    SoftDecisionTreeClassifier,
    SoftDecisionTreeRegressor,
)

__all__ = ["SoftDecisionTreeClassifier", "SoftDecisionTreeRegressor"]
