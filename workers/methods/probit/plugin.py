"""Platform glue: predictives for Gaussian logits on the probit-predictives benchmark."""

from __future__ import annotations

import torch
from pydantic import Field

from workers.benchmarks.probit_predictives.papers import PROBIT_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.probit.predictives import (
    normcdf_predictive,
    sample_link_probs,
    sigmoid_predictive,
    softmax_mean_field,
)


class _NoConfig(PluginConfig):
    pass


class _Predictive(Method):
    benchmarks = ("probit-predictives",)
    paper = PROBIT_PAPER
    Config = _NoConfig
    link = ""


@register_method
class NormCdfMethod(_Predictive):
    name = "probit-normcdf"
    title = "normCDF link, closed-form predictive"
    description = "Trained with the normalised-Phi loss; predictive Phi(mu/sqrt(1+var)) normalised over classes."
    link = "normcdf"

    def predict(self, mu: torch.Tensor, var: torch.Tensor, generator=None) -> torch.Tensor:
        return normcdf_predictive(mu, var)


@register_method
class SigmoidProbitMethod(_Predictive):
    name = "probit-sigmoid"
    title = "Sigmoid link, probit-approximate predictive"
    description = "Trained with the normalised-sigmoid loss; predictive sigma(mu/sqrt(1+pi var/8)) normalised."
    link = "sigmoid"

    def predict(self, mu: torch.Tensor, var: torch.Tensor, generator=None) -> torch.Tensor:
        return sigmoid_predictive(mu, var)


class McConfig(PluginConfig):
    n_samples: int = Field(1000, ge=1, le=100_000, description="Monte Carlo samples of the logits")


@register_method
class SoftmaxMcMethod(_Predictive):
    name = "probit-softmax-mc"
    title = "Softmax link + Monte Carlo"
    description = "Cross-entropy training; predictive mean of softmax over sampled logits."
    is_baseline = True
    Config = McConfig
    link = "softmax"

    def sample_counts(self) -> tuple[int, ...]:
        """Sample counts logged as a curve (10 .. n_samples, decades)."""
        return tuple(s for s in (10, 100, 1000, 10000, 100000) if s <= self.config.n_samples)

    def predict(self, mu: torch.Tensor, var: torch.Tensor, generator=None) -> torch.Tensor:
        return sample_link_probs(mu, var, self.config.n_samples, "softmax", generator)


@register_method
class SoftmaxMeanFieldMethod(_Predictive):
    name = "probit-softmax-meanfield"
    title = "Softmax link, mean-field (MacKay) approximation"
    description = "Cross-entropy training; predictive softmax(mu/sqrt(1+pi var/8)), no samples."
    is_baseline = True
    link = "softmax"

    def predict(self, mu: torch.Tensor, var: torch.Tensor, generator=None) -> torch.Tensor:
        return softmax_mean_field(mu, var)
