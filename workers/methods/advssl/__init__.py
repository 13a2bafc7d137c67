"""Adv-SSL: unbiased adversarial covariance regularisation (library + platform glue)."""

from workers.methods.advssl import plugin  # noqa: F401  (registers the methods)
from workers.methods.advssl.losses import (
    AdvSSLLoss,
    BarlowTwinsLoss,
    BiasedCovarianceLoss,
    VICRegLoss,
)
from workers.methods.advssl.train import Encoder, linear_probe, train_ssl

__all__ = [
    "AdvSSLLoss",
    "BarlowTwinsLoss",
    "BiasedCovarianceLoss",
    "Encoder",
    "VICRegLoss",
    "linear_probe",
    "train_ssl",
]
