"""Systems under test for `safety_retrieval`: the plain LLM (baseline), RAG, and a search agent."""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.safety_retrieval.paper import SAFETY_PAPER
from workers.benchmarks.safety_retrieval.protocol import Response
from workers.core import Method, PluginConfig, RunContext, register_method
from workers.methods.retrieval_agents.agent import SearchAgent
from workers.methods.retrieval_agents.rag import RAGResponder
from workers.retrieval.documents import Retriever


class GenConfig(PluginConfig):
    max_tokens: int = Field(
        512, ge=16, le=32768, description="Max completion tokens per model call"
    )
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature (0 = greedy)")
    max_doc_chars: int = Field(
        1500,
        ge=100,
        le=20000,
        description="Characters of each retrieved document shown to the model",
    )


class AgentConfig(GenConfig):
    max_steps: int = Field(
        3, ge=1, le=10, description="Most searches per episode before a forced answer"
    )


class _Base(Method):
    benchmarks = ("safety_retrieval",)
    requires_model = True
    paper = SAFETY_PAPER
    Config = GenConfig
    uses_retrieval = True

    def __init__(self, config=None) -> None:
        super().__init__(config)
        self._impl = None
        self._model = None

    def _build(self, model):
        c = self.config
        return RAGResponder(model, c.max_doc_chars, c.max_tokens, c.temperature)

    def respond(
        self, ctx: RunContext, prompt: str, system: str, retriever: Retriever | None, k: int
    ) -> Response:
        if ctx.model is None:
            raise ValueError(f"{self.name}: this method needs a model (ctx.model is None)")
        if self._impl is None or self._model is not ctx.model:
            self._impl, self._model = self._build(ctx.model), ctx.model
        return self._impl.respond(prompt, system, retriever if self.uses_retrieval else None, k)

    def run_summary(self) -> dict[str, float]:
        if self._model is None:
            return {}
        u = self._model.usage
        out = {
            "llm_calls": float(u.calls),
            "prompt_tokens": float(u.prompt_tokens),
            "completion_tokens": float(u.completion_tokens),
            "cost_usd": float(u.cost_usd),
        }
        if isinstance(self._impl, SearchAgent):
            out["agent_forced_answers"] = float(self._impl.forced_answers)
        return out


@register_method
class SafetyDirect(_Base):
    name = "safety_direct"
    title = "LLM without retrieval"
    description = "The model answers alone; the benchmark runs only the 'none' condition."
    is_baseline = True
    uses_retrieval = False


@register_method
class RetrievalRAG(_Base):
    name = "retrieval_rag"
    title = "Retrieval-augmented generation"
    description = "Top-k documents for the request are put in the prompt."


@register_method
class RetrievalAgent(_Base):
    name = "retrieval_agent"
    title = "Search agent (SEARCH/ANSWER text protocol)"
    description = (
        "The model decides to search, reads results and answers, within max_steps searches."
    )
    Config = AgentConfig

    def _build(self, model):
        c = self.config
        return SearchAgent(model, c.max_steps, c.max_doc_chars, c.max_tokens, c.temperature)
