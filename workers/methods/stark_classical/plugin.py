"""STARK's classical, first-principles baselines as a method (tiers 1 and 2; tier 3 not applicable)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from workers.benchmarks.stark.instance import Instance
from workers.benchmarks.stark.plugin import STARK_PAPER
from workers.benchmarks.stark.protocol import StarkAnswer
from workers.core import Method, PluginConfig, RunContext, register_method
from workers.methods.stark_classical.solver import solve_tier1, solve_tier2


class ClassicalConfig(PluginConfig):
    tolerance: float = Field(
        2e-4, ge=0, le=1e-2, description="Geometry tolerance (prompts round to 4 decimals)"
    )
    allen_eps: float = Field(5e-5, ge=0, le=1e-2, description="Tolerance on interval endpoints")
    multi_run: Literal["any", "hull"] = Field(
        "any",
        description="Spatio-temporal events on disjoint runs: "
        "relation holds for any run, or for their hull",
    )
    tracking_q: float = Field(1.0, gt=0, le=1000, description="Kalman acceleration noise density")
    idw_power: float = Field(1.0, gt=0, le=5, description="Spatial IDW exponent (STARK's rule: 1)")
    temporal_power: float = Field(2.0, gt=0, le=5, description="Temporal IDW exponent")
    ar_order: int = Field(2, ge=1, le=6, description="AR forecaster order")


@register_method
class StarkClassical(Method):
    name = "stark_classical"
    title = "STARK classical solvers"
    description = (
        "NLLS multilateration/triangulation, joint range+bearing, proximity region intersection, "
        "TOA localization, EKF tracking, IDW/AR for fields, exact DE-9IM and Allen algebra."
    )
    benchmarks = ("stark",)
    is_baseline = True
    paper = STARK_PAPER
    Config = ClassicalConfig

    def answer(self, instance: Instance, ctx: RunContext) -> StarkAnswer:
        cfg = self.config
        if instance.tier == 3:
            return StarkAnswer.not_applicable(
                "world-knowledge questions have no first-principles solver"
            )
        if instance.tier == 1:
            text = solve_tier1(
                instance, cfg.tracking_q, cfg.idw_power, cfg.temporal_power, cfg.ar_order
            )
        else:
            text = solve_tier2(instance, cfg.tolerance, cfg.allen_eps, cfg.multi_run)
        return StarkAnswer(text)
