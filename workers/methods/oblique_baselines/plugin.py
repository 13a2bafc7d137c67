"""Baselines of the oblique-tree benchmarks: CART, random forest, soft decision tree."""

from __future__ import annotations

from pydantic import Field
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from workers.benchmarks.oblique_trees.papers import RADDT_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.oblique_baselines.soft_tree import (
    SoftDecisionTreeClassifier,
    SoftDecisionTreeRegressor,
)

_BENCHES = ("oblique-classification", "oblique-regression")


class _Empty(PluginConfig):
    pass


@register_method
class CartMethod(Method):
    name = "oblique-cart"
    title = "CART (scikit-learn, axis-aligned)"
    description = "Greedy axis-aligned tree of the same depth."
    benchmarks = _BENCHES
    is_baseline = True
    paper = RADDT_PAPER
    Config = _Empty

    def make_estimator(self, task: str, depth: int, seed: int, device: str = "cpu"):
        cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
        return cls(max_depth=depth, random_state=seed)


class ForestConfig(PluginConfig):
    n_estimators: int = Field(100, ge=1, le=2000, description="Trees in the forest")


@register_method
class RandomForestMethod(Method):
    name = "oblique-random-forest"
    title = "Random forest (scikit-learn)"
    description = "Bagged CART trees of the same maximum depth."
    benchmarks = _BENCHES
    is_baseline = True
    paper = RADDT_PAPER
    Config = ForestConfig

    def make_estimator(self, task: str, depth: int, seed: int, device: str = "cpu"):
        cls = RandomForestClassifier if task == "classification" else RandomForestRegressor
        return cls(
            n_estimators=self.config.n_estimators, max_depth=depth, random_state=seed, n_jobs=1
        )


class SoftTreeConfig(PluginConfig):
    epochs: int = Field(200, ge=1, le=10000, description="Training epochs")
    lr: float = Field(0.05, gt=0, le=1, description="Adam learning rate")
    batch_size: int = Field(0, ge=0, le=10_000_000, description="Mini-batch size (0 = full batch)")


@register_method
class SoftTreeMethod(Method):
    name = "oblique-soft-tree"
    title = "Soft decision tree (sigmoid gates)"
    description = (
        "Probabilistic routing trained by gradient descent; predicts with the soft mixture."
    )
    benchmarks = _BENCHES
    is_baseline = True
    paper = RADDT_PAPER
    Config = SoftTreeConfig

    def make_estimator(self, task: str, depth: int, seed: int, device: str = "cpu"):
        c = self.config
        cls = SoftDecisionTreeClassifier if task == "classification" else SoftDecisionTreeRegressor
        return cls(
            max_depth=depth,
            epochs=c.epochs,
            lr=c.lr,
            batch_size=c.batch_size or None,
            random_state=seed,
            device=device,
        )
