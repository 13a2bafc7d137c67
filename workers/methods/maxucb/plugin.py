"""Platform glue: the `maxucb` method for the `cash` benchmark."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from workers.benchmarks.cash.paper import CASH_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.maxucb.policy import MaxUCB


class MaxUCBConfig(PluginConfig):
    alpha: float = Field(
        0.5,
        ge=0.0,
        le=10.0,
        description="Exploration parameter alpha in the bonus (alpha * ln t / n_i)^2; "
        "the paper's default is 0.5.",
    )


@register_method
class MaxUCBMethod(Method):
    name = "maxucb"
    title = "MaxUCB"
    description = (
        "Max k-armed bandit for bounded, light-tailed rewards: pulls the model class with the "
        "highest max rescaled score plus (alpha ln t / n_i)^2."
    )
    benchmarks = ("cash",)
    is_baseline = False
    paper = CASH_PAPER
    Config = MaxUCBConfig

    def make_policy(self, n_arms: int, horizon: int, rng: np.random.Generator) -> MaxUCB:
        return MaxUCB(n_arms, alpha=self.config.alpha, rng=rng)
