"""Arm-selection baselines for the `cash` benchmark: policies (library) and method plugins."""

from workers.methods.bandit_baselines.max_bandits import QoMaxETC, QuantileUCB, qomax
from workers.methods.bandit_baselines.plugins import (
    QoMaxETCMethod,
    QuantileUCBMethod,
    RandomArmMethod,
    RoundRobinMethod,
    UCB1Method,
)
from workers.methods.bandit_baselines.policies import UCB1, RandomArm, RoundRobin

__all__ = [
    "UCB1",
    "QoMaxETC",
    "QoMaxETCMethod",
    "QuantileUCB",
    "QuantileUCBMethod",
    "RandomArm",
    "RandomArmMethod",
    "RoundRobin",
    "RoundRobinMethod",
    "UCB1Method",
    "qomax",
]
