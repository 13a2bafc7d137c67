"""Baselines on the FastSVERL benchmark: sampling and enumeration over a learned characteristic."""

from __future__ import annotations

import torch
from pydantic import Field

from workers.benchmarks.sverl_explain.benchmark import SverlMethod
from workers.benchmarks.sverl_explain.task import Explainer, ExplanationTask
from workers.core import RunContext, register_method
from workers.methods.sverl_baselines.sampling import enumeration_shapley, permutation_shapley
from workers.methods.sverl_fastsverl.plugin import FastSVERLConfig, learn_characteristic


class SamplingConfig(FastSVERLConfig):
    permutations: int = Field(
        8, ge=1, le=10_000, description="Random permutations per explained state."
    )


@register_method
class SamplingSVERL(SverlMethod):
    name = "sverl-sampling"
    title = "SVERL with permutation sampling"
    description = (
        "Learned characteristic; Shapley values per state by Monte Carlo permutation sampling."
    )
    is_baseline = True
    Config = SamplingConfig

    def explain(self, task: ExplanationTask, ctx: RunContext) -> Explainer:
        gen = torch.Generator().manual_seed(ctx.seed)
        char = learn_characteristic(task, self.config, False, gen, ctx)
        return lambda s: permutation_shapley(char, s, self.config.permutations, gen)  # type: ignore[attr-defined]


@register_method
class EnumerationSVERL(SverlMethod):
    name = "sverl-enumeration"
    title = "SVERL with exact enumeration over a learned characteristic"
    description = (
        "Learned characteristic; all 2^d coalitions evaluated per state (exponential in d)."
    )
    is_baseline = True
    Config = FastSVERLConfig

    def explain(self, task: ExplanationTask, ctx: RunContext) -> Explainer:
        gen = torch.Generator().manual_seed(ctx.seed)
        char = learn_characteristic(task, self.config, False, gen, ctx)
        return lambda s: enumeration_shapley(char, s)
