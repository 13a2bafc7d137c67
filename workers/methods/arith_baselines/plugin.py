"""Platform glue for the wiring baselines (default, random, greedy timing-driven)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from workers.benchmarks.arith_circuits.benchmark import ArithWiringMethod
from workers.benchmarks.arith_circuits.compressor import Wiring
from workers.benchmarks.arith_circuits.problem import WiringProblem
from workers.core import PluginConfig, RunContext, register_method
from workers.methods.arith_baselines.wiring import default_wiring, greedy_wiring, random_wiring


@register_method
class DefaultWiring(ArithWiringMethod):
    name = "arith-default-wiring"
    title = "Wallace/Dadda default wiring"
    description = "Signals wired to compressor pins in the order the tree lists them."
    is_baseline = True

    def wire(self, problem: WiringProblem, rng: np.random.Generator, ctx: RunContext) -> Wiring:
        return default_wiring(problem)


class RandomWiringConfig(PluginConfig):
    tries: int = Field(
        1, ge=1, le=1000, description="Random interconnects drawn per design; the fastest is kept."
    )


@register_method
class RandomWiring(ArithWiringMethod):
    name = "arith-random-wiring"
    title = "Random wiring"
    description = (
        "Uniformly random signal-to-pin permutations in every stage and column (best of `tries`)."
    )
    is_baseline = True
    Config = RandomWiringConfig

    def wire(self, problem: WiringProblem, rng: np.random.Generator, ctx: RunContext) -> Wiring:
        best, best_d = None, float("inf")
        for _ in range(self.config.tries):  # type: ignore[attr-defined]
            ctx.check_cancelled()
            w = random_wiring(problem, rng)
            d = problem.delay(w)
            if d < best_d:
                best, best_d = w, d
        return best


@register_method
class GreedyWiring(ArithWiringMethod):
    name = "arith-greedy-wiring"
    title = "Greedy timing-driven wiring"
    description = "Three-greedy timing-driven interconnect: earliest signals to compressors, latest to the fast carry-in pin."
    is_baseline = True

    def wire(self, problem: WiringProblem, rng: np.random.Generator, ctx: RunContext) -> Wiring:
        return greedy_wiring(problem)
