"""The interface between the STARK benchmark and the methods it evaluates.

A method implements `answer(instance, ctx) -> StarkAnswer`. It receives the instance without
its ground truth; it returns STARK's response text (for online tracking, the per-step replies
joined by newlines, each with its own [RESULTS_START] ... [RESULTS_END] block), or
`StarkAnswer.not_applicable()` for tasks it does not address (e.g. classical solvers on tier 3),
which are reported as such and excluded from the success rate. A method may also define
`run_summary() -> dict[str, float]` (token usage, cost) that the benchmark adds to the summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from workers.benchmarks.stark.instance import Instance
from workers.core import RunContext


@dataclass
class StarkAnswer:
    text: str | None
    applicable: bool = True
    transcript: list[dict[str, str]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def not_applicable(cls, reason: str = "") -> StarkAnswer:
        return cls(None, applicable=False, info={"reason": reason} if reason else {})


class StarkSolver(Protocol):
    def answer(self, instance: Instance, ctx: RunContext) -> StarkAnswer: ...
