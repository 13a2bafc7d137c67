"""Platform glue: the arm-selection baselines of the `cash` benchmark."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from workers.benchmarks.cash.paper import CASH_PAPER
from workers.benchmarks.cash.policy import BanditPolicy
from workers.core import Method, PluginConfig, register_method
from workers.methods.bandit_baselines.max_bandits import QoMaxETC, QuantileUCB
from workers.methods.bandit_baselines.policies import UCB1, RandomArm, RoundRobin


class _CashBaseline(Method):
    benchmarks = ("cash",)
    is_baseline = True
    paper = CASH_PAPER  # the paper whose comparison these baselines come from

    def make_policy(self, n_arms: int, horizon: int, rng: np.random.Generator) -> BanditPolicy:
        raise NotImplementedError


@register_method
class RoundRobinMethod(_CashBaseline):
    name = "round_robin"
    title = "Round-robin"
    description = "Uniform budget allocation: cycles through the model classes in order."

    def make_policy(self, n_arms: int, horizon: int, rng: np.random.Generator) -> BanditPolicy:
        return RoundRobin(n_arms)


@register_method
class RandomArmMethod(_CashBaseline):
    name = "random_arm"
    title = "Random arm"
    description = "Picks a model class uniformly at random at every iteration."

    def make_policy(self, n_arms: int, horizon: int, rng: np.random.Generator) -> BanditPolicy:
        return RandomArm(n_arms, rng=rng)


class UCB1Config(PluginConfig):
    c: float = Field(
        2.0,
        ge=0.0,
        le=100.0,
        description="Exploration constant c in mean + sqrt(c ln t / n_i); UCB1 uses 2.",
    )
    rescale: bool = Field(
        True, description="Min-max rescale all rewards to [0, 1] before computing means."
    )


@register_method
class UCB1Method(_CashBaseline):
    name = "ucb1"
    title = "UCB1"
    description = (
        "Classic UCB1 on the mean validation score of each model class (Auer et al. 2002)."
    )
    Config = UCB1Config

    def make_policy(self, n_arms: int, horizon: int, rng: np.random.Generator) -> BanditPolicy:
        return UCB1(n_arms, c=self.config.c, rescale=self.config.rescale, rng=rng)


class QoMaxETCConfig(PluginConfig):
    batches: int = Field(4, ge=1, le=1000, description="Number of exploration batches b per arm.")
    batch_size: int = Field(
        3, ge=1, le=1000, description="Pulls n per batch; each arm is explored b * n times."
    )
    q: float = Field(
        0.5, ge=0.0, le=1.0, description="Quantile of the batch maxima (0.5 = median of maxima)."
    )


@register_method
class QoMaxETCMethod(_CashBaseline):
    name = "qomax_etc"
    title = "QoMax-ETC"
    description = (
        "Extreme-bandit explore-then-commit with the Quantile-of-Maxima estimator "
        "(Baudry, Russac, Kaufmann 2022)."
    )
    Config = QoMaxETCConfig

    def make_policy(self, n_arms: int, horizon: int, rng: np.random.Generator) -> BanditPolicy:
        return QoMaxETC(
            n_arms,
            batches=self.config.batches,
            batch_size=self.config.batch_size,
            q=self.config.q,
            rng=rng,
        )


class QuantileUCBConfig(PluginConfig):
    tau: float = Field(
        0.95, ge=0.0, le=1.0, description="Quantile level tau of each arm's rewards."
    )
    alpha: float = Field(
        0.25, ge=0.0, le=100.0, description="Exploration parameter in sqrt(alpha ln t / n_i)."
    )


@register_method
class QuantileUCBMethod(_CashBaseline):
    name = "quantile_ucb"
    title = "Quantile-UCB"
    description = "UCB on an upper quantile (tau = 0.95) of each model class's rescaled scores."
    Config = QuantileUCBConfig

    def make_policy(self, n_arms: int, horizon: int, rng: np.random.Generator) -> BanditPolicy:
        return QuantileUCB(n_arms, tau=self.config.tau, alpha=self.config.alpha, rng=rng)
