"""Platform glue: the ReLU+Argmin tree on the oblique-classification/-regression benchmarks."""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.oblique_trees.papers import RADDT_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.oblique_tree.estimators import (
    ReluArgminTreeClassifier,
    ReluArgminTreeRegressor,
)


class ReluArgminConfig(PluginConfig):
    n_scales: int = Field(
        5, ge=1, le=20, description="Stages of the softmin-scale annealing (log-spaced)"
    )
    scale_min: float = Field(2.0, gt=0, le=1000, description="First softmin scale")
    scale_max: float = Field(
        0.0, ge=0, le=10000, description="Last softmin scale (0 = by depth: 100/130/170/200)"
    )
    epochs: int = Field(30, ge=1, le=10000, description="Epochs per annealing stage")
    lr: float = Field(0.01, gt=0, le=1, description="AdamW learning rate")
    batch_size: int = Field(0, ge=0, le=10_000_000, description="Mini-batch size (0 = full batch)")
    n_restarts: int = Field(
        0, ge=0, le=50, description="Random starts annealed besides the CART warm start"
    )


@register_method
class ReluArgminMethod(Method):
    name = "oblique-reluargmin"
    title = "ReLU+Argmin differentiable oblique tree (RADDT)"
    description = "Whole-tree gradient training with softmin of ReLU violations, scale annealing, CART warm start."
    benchmarks = ("oblique-classification", "oblique-regression")
    paper = RADDT_PAPER
    Config = ReluArgminConfig

    def make_estimator(self, task: str, depth: int, seed: int, device: str = "cpu"):
        c = self.config
        cls = ReluArgminTreeClassifier if task == "classification" else ReluArgminTreeRegressor
        return cls(
            max_depth=depth,
            n_scales=c.n_scales,
            scale_min=c.scale_min,
            scale_max=c.scale_max or None,
            epochs=c.epochs,
            lr=c.lr,
            batch_size=c.batch_size or None,
            n_restarts=c.n_restarts,
            random_state=seed,
            device=device,
        )
