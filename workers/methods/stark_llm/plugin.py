"""LLM methods for STARK: any registered chat model, in STARK's text mode or code mode."""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.stark.instance import Instance
from workers.benchmarks.stark.plugin import STARK_PAPER
from workers.benchmarks.stark.protocol import StarkAnswer
from workers.core import Method, PluginConfig, RunContext, register_method
from workers.methods.stark_llm.agent import StarkAgent


class LLMConfig(PluginConfig):
    max_rounds: int = Field(5, ge=0, le=20, description="Extra rounds after feedback (STARK's --n)")
    temperature: float = Field(1.0, ge=0, le=2, description="Sampling temperature (STARK uses 1)")
    max_tokens: int = Field(4096, ge=16, le=65536, description="Max completion tokens per call")
    wall_timeout: float = Field(
        30.0, gt=0, le=600, description="Code mode: wall-clock limit per program (s)"
    )
    cpu_seconds: int = Field(
        20, ge=1, le=600, description="Code mode: CPU-time limit per program (s)"
    )
    memory_mb: int = Field(
        2048, ge=256, le=65536, description="Code mode: address-space limit per program"
    )


class _StarkLLM(Method):
    benchmarks = ("stark",)
    requires_model = True
    paper = STARK_PAPER
    Config = LLMConfig
    mode = "text"

    def __init__(self, config=None) -> None:
        super().__init__(config)
        self._agent: StarkAgent | None = None

    def _agent_for(self, ctx: RunContext) -> StarkAgent:
        if ctx.model is None:
            raise ValueError(f"{self.name}: this method needs a model (ctx.model is None)")
        if self._agent is None or self._agent.model is not ctx.model:
            c = self.config
            self._agent = StarkAgent(
                ctx.model,
                self.mode,
                c.max_rounds,
                c.temperature,
                c.max_tokens,
                c.wall_timeout,
                c.cpu_seconds,
                c.memory_mb,
            )
        return self._agent

    def answer(self, instance: Instance, ctx: RunContext) -> StarkAnswer:
        agent = self._agent_for(ctx)
        text, transcript = agent.solve(instance)
        return StarkAnswer(text, transcript=transcript, info={"messages": len(transcript)})

    def run_summary(self) -> dict[str, float]:
        if self._agent is None:
            return {}
        usage = self._agent.model.usage
        out = {
            "llm_calls": float(usage.calls),
            "prompt_tokens": float(usage.prompt_tokens),
            "completion_tokens": float(usage.completion_tokens),
            "cost_usd": float(usage.cost_usd),
        }
        if self.mode == "code":
            out["sandbox_runs"] = float(self._agent.sandbox_runs)
            out["sandbox_failures"] = float(sum(self._agent.sandbox_failures.values()))
        return out


@register_method
class StarkLLMText(_StarkLLM):
    name = "stark_llm_text"
    title = "LLM, STARK text mode"
    description = "The model answers STARK's prompt directly (no tools)."
    mode = "text"


@register_method
class StarkLLMCode(_StarkLLM):
    name = "stark_llm_code"
    title = "LLM, STARK code mode"
    description = (
        "The model writes a Python solver, run in the sandbox; its printed result is the answer."
    )
    mode = "code"
