"""Sampling-free probit / normCDF predictives (library: predictives, losses, heads)."""

from workers.methods.probit import plugin  # noqa: F401  (registers the methods)
from workers.methods.probit.heads import GaussianLogitClassifier, link_fisher
from workers.methods.probit.losses import GaussianLogitNLLLoss, NormedLinkNLLLoss
from workers.methods.probit.predictives import (
    dirichlet_moment_match,
    normcdf_predictive,
    sample_link_probs,
    second_moment,
    sigmoid_predictive,
    softmax_mean_field,
)

__all__ = [
    "GaussianLogitClassifier",
    "GaussianLogitNLLLoss",
    "NormedLinkNLLLoss",
    "dirichlet_moment_match",
    "link_fisher",
    "normcdf_predictive",
    "sample_link_probs",
    "second_moment",
    "sigmoid_predictive",
    "softmax_mean_field",
]
