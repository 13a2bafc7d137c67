"""Platform glue: DP best-subset-selection methods for the `dpbss-support-recovery` benchmark.

Interface the benchmark calls:
    method.select(X, y, s=, epsilon=, loss=, n_draws=, rng=) -> int array (n_draws, s)
each row one epsilon-DP selected support (the draws share the data, so they describe the
mechanism's output distribution; one released support costs epsilon).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import Field

from workers.benchmarks.dpbss.paper import DPBSS_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.dpbss.mip import SupportMIP
from workers.methods.dpbss.objective import clip_data, make_objective, sensitivity
from workers.methods.dpbss.samplers import (
    MistakesSampler,
    TopRSampler,
    dp_lasso_subsample,
    exact_exponential_mechanism,
    mcmc_exponential_mechanism,
)

BENCH = "dpbss-support-recovery"


class ClippedEMConfig(PluginConfig):
    b_x: float = Field(
        0.5, gt=0.0, le=100.0, description="Clip every feature value to [-b_x, b_x] (sensitivity)."
    )
    b_y: float = Field(
        0.5, gt=0.0, le=100.0, description="Clip responses to [-b_y, b_y] (least squares only)."
    )
    r: float = Field(
        1.1, gt=0.0, le=100.0, description="l2 bound on the coefficients, ||beta||_2 <= r."
    )
    lam: float = Field(
        100.0, gt=0.0, le=1e6, description="Ridge weight lambda in L(S) (lambda/(2n)||beta||^2)."
    )
    gap_tol: float = Field(
        5e-3,
        ge=0.0,
        le=0.5,
        description="Relative optimality gap at which the outer-approximation "
        "MIP stops (the authors' code uses 5e-3); 0 = solve to optimality (MIP samplers only).",
    )


class _ClippedEM(Method):
    benchmarks = (BENCH,)
    paper = DPBSS_PAPER
    Config: ClassVar[type[PluginConfig]] = ClippedEMConfig

    def _setup(self, X: np.ndarray, y: np.ndarray, s: int, loss: str):
        cfg = self.config
        Xc, yc = clip_data(X, y, cfg.b_x, cfg.b_y if loss == "least_squares" else None)
        obj = make_objective(loss, Xc, yc, lam=cfg.lam, r=cfg.r)
        delta = sensitivity(loss, X.shape[0], s, cfg.r, cfg.b_x, cfg.b_y)
        return obj, delta


class TopRConfig(ClippedEMConfig):
    R: int = Field(
        0,
        ge=0,
        le=100_000,
        description="Number of best supports found by MIP; 0 = the paper's "
        "default 1 + s(p-s) + 1 (optimum, its one-swap neighbours, best two-mistake support).",
    )


@register_method
class TopRMethod(_ClippedEM):
    name = "dpbss-top-r"
    title = "DP-BSS top-R sampler (MIP)"
    description = "Exponential mechanism where the R best supports (outer-approximation MIP, HiGHS) carry exact weight."
    Config = TopRConfig

    def select(
        self, X, y, *, s: int, epsilon: float, loss: str, n_draws: int, rng: np.random.Generator
    ) -> np.ndarray:
        obj, delta = self._setup(X, y, s, loss)
        sampler = TopRSampler(
            SupportMIP(obj, s, gap_tol=self.config.gap_tol), epsilon, delta, R=self.config.R or None
        )
        return sampler.sample(n_draws, rng)


class MistakesConfig(ClippedEMConfig):
    within: str = Field(
        "best",
        pattern="^(best|uniform)$",
        description="Support returned inside the drawn "
        "mistake group: its best support (authors' code) or a uniform one.",
    )


@register_method
class MistakesMethod(_ClippedEM):
    name = "dpbss-mistakes"
    title = "DP-BSS mistakes sampler (MIP)"
    description = (
        "Draws a swap distance k from the optimum with MIP-computed group weights, then a support."
    )
    Config = MistakesConfig

    def select(
        self, X, y, *, s: int, epsilon: float, loss: str, n_draws: int, rng: np.random.Generator
    ) -> np.ndarray:
        obj, delta = self._setup(X, y, s, loss)
        return MistakesSampler(
            SupportMIP(obj, s, gap_tol=self.config.gap_tol),
            epsilon,
            delta,
            within=self.config.within,
        ).sample(n_draws, rng)


class MCMCConfig(ClippedEMConfig):
    n_iter: int = Field(
        300, ge=1, le=1_000_000, description="Metropolis-Hastings swap steps per chain."
    )


@register_method
class MCMCMethod(_ClippedEM):
    name = "dpbss-mcmc"
    title = "MCMC exponential mechanism (Roy et al.)"
    description = "Metropolis-Hastings over supports with swap proposals, targeting the same exponential mechanism."
    is_baseline = True
    Config = MCMCConfig

    def select(
        self, X, y, *, s: int, epsilon: float, loss: str, n_draws: int, rng: np.random.Generator
    ) -> np.ndarray:
        obj, delta = self._setup(X, y, s, loss)
        return mcmc_exponential_mechanism(obj, s, epsilon, delta, n_draws, self.config.n_iter, rng)


@register_method
class ExactEMMethod(_ClippedEM):
    name = "dpbss-exact-em"
    title = "Exact exponential mechanism (enumeration)"
    description = (
        "Enumerates all C(p, s) supports; the reference the samplers approximate (small p only)."
    )
    is_baseline = True

    def select(
        self, X, y, *, s: int, epsilon: float, loss: str, n_draws: int, rng: np.random.Generator
    ) -> np.ndarray:
        obj, delta = self._setup(X, y, s, loss)
        return exact_exponential_mechanism(obj, s, epsilon, delta, n_draws, rng)[0]


class LassoConfig(PluginConfig):
    alpha: float = Field(
        0.05,
        gt=0.0,
        le=100.0,
        description="Lasso penalty of each block's fit (scikit-learn alpha).",
    )


@register_method
class DPLassoMethod(Method):
    name = "dpbss-lasso"
    title = "DP Lasso subsample-and-aggregate"
    description = "Lasso on sqrt(n) disjoint blocks, Laplace-noised vote counts, top-s selection."
    benchmarks = (BENCH,)
    is_baseline = True
    paper = DPBSS_PAPER
    Config = LassoConfig

    def select(
        self, X, y, *, s: int, epsilon: float, loss: str, n_draws: int, rng: np.random.Generator
    ) -> np.ndarray:
        return dp_lasso_subsample(X, y, s, epsilon, self.config.alpha, n_draws, rng)
