"""Platform glue for Arith-DAS."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from workers.benchmarks.arith_circuits.benchmark import ArithWiringMethod
from workers.benchmarks.arith_circuits.compressor import Wiring
from workers.benchmarks.arith_circuits.problem import WiringProblem
from workers.core import PluginConfig, RunContext, register_method
from workers.methods.arith_das.das import ArithDAS


class ArithDASConfig(PluginConfig):
    steps: int = Field(40, ge=1, le=5000, description="Adam updates of the edge logits per design.")
    lr: float = Field(0.3, gt=0, le=10, description="Adam learning rate.")
    tau0: float = Field(1.0, gt=0, le=100, description="Initial Gumbel-softmax temperature.")
    tau1: float = Field(
        0.1, gt=0, le=100, description="Final Gumbel-softmax temperature (geometric annealing)."
    )
    beta: float = Field(
        0.3, gt=0, le=10, description="Smooth-max (log-sum-exp) temperature in delay units."
    )
    sinkhorn_iters: int = Field(
        8, ge=1, le=100, description="Sinkhorn normalisations per relaxed assignment."
    )
    eval_every: int = Field(
        5, ge=1, le=1000, description="Legalise and evaluate the design exactly every k updates."
    )
    init: Literal["greedy", "default", "random"] = Field(
        "default",
        description="Edges the logits start on (default = textbook in-order wiring; greedy = refine the timing-driven heuristic).",
    )
    init_strength: float = Field(
        2.0, ge=0, le=100, description="Logit bonus of the starting edges."
    )


@register_method
class ArithDASMethod(ArithWiringMethod):
    name = "arith-das"
    title = "Arith-DAS (differentiable interconnect search)"
    description = "Gumbel-softmax/Sinkhorn relaxation of compressor-pin edges, optimised through a smooth STA."
    Config = ArithDASConfig

    def wire(self, problem: WiringProblem, rng: np.random.Generator, ctx: RunContext) -> Wiring:
        cfg = self.config
        das = ArithDAS(
            steps=cfg.steps,
            lr=cfg.lr,
            tau0=cfg.tau0,
            tau1=cfg.tau1,
            beta=cfg.beta,  # type: ignore[attr-defined]
            sinkhorn_iters=cfg.sinkhorn_iters,
            eval_every=cfg.eval_every,  # type: ignore[attr-defined]
            init=cfg.init,
            init_strength=cfg.init_strength,  # type: ignore[attr-defined]
            seed=int(rng.integers(2**31)),
        )

        def on_step(step: int, soft: float, best: float) -> None:
            ctx.check_cancelled()

        return das.optimise(problem, on_step=on_step)
