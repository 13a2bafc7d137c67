"""Platform glue: the samplers as methods on `video-dlbs`, each fitted to the NFE budget.

* dlbs-ddim (baseline): one deterministic DDIM sample (S NFE, whatever the budget).
* dlbs-best-of-n (baseline): N = budget // S DDIM samples, the best by the reward.
* dlbs-greedy (baseline): greedy search, B = 1, K as large as the budget allows, T' = 1.
* dlbs: beam search without lookahead (T' = 1, the Tweedie estimate), B ~ sqrt(KB).
* dlbs-lookahead: beam search with T' lookahead steps (K shrinks to fit the budget).
"""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.video_dlbs.interface import VideoSearchMethod
from workers.core import PluginConfig, register_method
from workers.methods.dlbs.samplers import (
    SampleResult,
    Scorer,
    beam_search,
    best_of_n,
    ddim,
    plan_beam,
)


class DdimConfig(PluginConfig):
    eta: float = Field(0.0, ge=0, le=1, description="DDIM eta (0 = deterministic).")


@register_method
class DdimSampler(VideoSearchMethod):
    name = "dlbs-ddim"
    title = "DDIM (no search)"
    description = "One DDIM sample; spends S NFE whatever the budget."
    is_baseline = True
    Config = DdimConfig

    def sample(
        self, model, cond, scorer: Scorer, *, steps, budget, generator, lookahead=None
    ) -> SampleResult:
        z, nfe = ddim(model, cond, steps, generator, eta=self.config.eta)
        return SampleResult(z, nfe, float(scorer(z)[0]))


class BestOfNConfig(PluginConfig):
    eta: float = Field(0.0, ge=0, le=1, description="DDIM eta of each sample.")


@register_method
class BestOfNSampler(VideoSearchMethod):
    name = "dlbs-best-of-n"
    title = "Best-of-N"
    description = "N = budget // S independent DDIM samples; the one with the highest reward."
    is_baseline = True
    Config = BestOfNConfig

    def sample(
        self, model, cond, scorer, *, steps, budget, generator, lookahead=None
    ) -> SampleResult:
        n = max(1, budget // steps)
        return best_of_n(model, cond, steps, n, scorer, generator, eta=self.config.eta)


class BeamConfig(PluginConfig):
    eta: float = Field(
        1.0, gt=0, le=1, description="Stochastic DDIM eta giving sigma_t for candidates."
    )
    beams: int = Field(
        0, ge=0, le=64, description="Beams B (0 = about sqrt(KB), halved until it fits)."
    )
    lookahead_steps: int = Field(
        1, ge=1, le=100, description="Lookahead DDIM steps T' (1 = Tweedie x0)."
    )
    search_start: float = Field(
        0.0, ge=0, le=1, description="Search range start (fraction of the steps)."
    )
    search_end: float = Field(
        1.0, ge=0, le=1, description="Search range end (fraction of the steps)."
    )


class _BeamBase(VideoSearchMethod):
    Config = BeamConfig
    fixed_beams: int | None = None
    uses_lookahead = False

    def plan(self, steps: int, budget: int, lookahead: int | None = None):
        c = self.config
        la = lookahead if (lookahead and self.uses_lookahead) else c.lookahead_steps
        beams = self.fixed_beams or (c.beams or None)
        return plan_beam(steps, budget, la, beams, (c.search_start, c.search_end))

    def sample(
        self, model, cond, scorer, *, steps, budget, generator, lookahead=None
    ) -> SampleResult:
        p = self.plan(steps, budget, lookahead)
        return beam_search(
            model,
            cond,
            steps,
            scorer,
            generator,
            beams=p.beams,
            candidates=p.candidates,
            lookahead_steps=p.lookahead_steps,
            eta=self.config.eta,
            search_steps=p.search_steps,
        )


@register_method
class GreedySampler(_BeamBase):
    name = "dlbs-greedy"
    title = "Greedy search (B = 1)"
    description = "Greedy latent search: one beam, K candidates per step scored by the Tweedie x0."
    is_baseline = True
    fixed_beams = 1


@register_method
class DlbsSampler(_BeamBase):
    name = "dlbs"
    title = "DLBS (no lookahead)"
    description = "Diffusion latent beam search, B beams x K candidates, Tweedie x0 scoring."


class LookaheadConfig(BeamConfig):
    lookahead_steps: int = Field(2, ge=1, le=100, description="Lookahead DDIM steps T'.")


@register_method
class DlbsLookaheadSampler(_BeamBase):
    name = "dlbs-lookahead"
    title = "DLBS with lookahead"
    description = (
        "Diffusion latent beam search scoring candidates after T' deterministic DDIM steps."
    )
    Config = LookaheadConfig
    uses_lookahead = True
