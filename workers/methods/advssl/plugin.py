"""Platform glue: Adv-SSL and its baselines on the advssl-probe benchmark."""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.advssl_probe.papers import ADVSSL_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.advssl.losses import (
    AdvSSLLoss,
    BarlowTwinsLoss,
    BiasedCovarianceLoss,
    VICRegLoss,
)


class LamConfig(PluginConfig):
    lam: float = Field(1.0, ge=0, le=1000, description="Weight of the covariance penalty")


@register_method
class AdvSslMethod(Method):
    name = "advssl"
    title = "Adv-SSL (unbiased adversarial covariance penalty)"
    description = (
        "Alignment + lambda (2<G, C-I> - ||G||^2), G from the previous batch in closed form."
    )
    benchmarks = ("advssl-probe",)
    paper = ADVSSL_PAPER
    Config = LamConfig

    def objective(self):
        return AdvSSLLoss(self.config.lam)


@register_method
class BiasedCovMethod(AdvSslMethod):
    name = "advssl-biased"
    title = "Plug-in ||C_hat - I||^2 (Adv-SSL's objective without the adversarial form)"
    description = "Same objective and scaling as Adv-SSL but the biased mini-batch penalty."
    is_baseline = True

    def objective(self):
        return BiasedCovarianceLoss(self.config.lam)


class BarlowConfig(PluginConfig):
    lam: float = Field(5e-3, ge=0, le=10, description="Off-diagonal weight")


@register_method
class BarlowTwinsMethod(Method):
    name = "advssl-barlow-twins"
    title = "Barlow Twins"
    description = "Cross-correlation of standardised views pushed to the identity."
    benchmarks = ("advssl-probe",)
    is_baseline = True
    paper = ADVSSL_PAPER
    Config = BarlowConfig

    def objective(self):
        return BarlowTwinsLoss(self.config.lam)


class VicregConfig(PluginConfig):
    sim: float = Field(25.0, ge=0, le=1000, description="Invariance weight")
    var: float = Field(25.0, ge=0, le=1000, description="Variance weight")
    cov: float = Field(1.0, ge=0, le=1000, description="Covariance weight")


@register_method
class VicregMethod(Method):
    name = "advssl-vicreg"
    title = "VICReg"
    description = "Invariance + variance hinge + covariance penalty."
    benchmarks = ("advssl-probe",)
    is_baseline = True
    paper = ADVSSL_PAPER
    Config = VicregConfig

    def objective(self):
        c = self.config
        return VICRegLoss(c.sim, c.var, c.cov)
