"""Differentiable oblique decision trees via ReLU+Argmin (library + platform glue)."""

from workers.methods.oblique_tree import plugin  # noqa: F401  (registers the method)
from workers.methods.oblique_tree.estimators import (
    ReluArgminTreeClassifier,
    ReluArgminTreeRegressor,
)
from workers.methods.oblique_tree.reluargmin import ReluArgminTree, anneal_fit, soft_objective

__all__ = [
    "ReluArgminTree",
    "ReluArgminTreeClassifier",
    "ReluArgminTreeRegressor",
    "anneal_fit",
    "soft_objective",
]
