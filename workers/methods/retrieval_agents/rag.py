"""Retrieval-augmented generation: retrieve k documents for the request and put them in the
prompt (Lewis et al. 2020's usage, as in the paper's RAG setting)."""

from __future__ import annotations

from workers.benchmarks.safety_retrieval.protocol import Response, rag_prompt
from workers.models.base import ChatModel
from workers.retrieval.documents import Retriever


def chat(system: str, user: str) -> list[dict[str, str]]:
    msgs = [{"role": "system", "content": system}] if system else []
    return msgs + [{"role": "user", "content": user}]


class RAGResponder:
    """respond(prompt, system, retriever, k): documents in the prompt; no retriever = plain LLM."""

    def __init__(
        self,
        model: ChatModel,
        max_doc_chars: int = 1500,
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> None:
        if max_doc_chars < 1 or max_tokens < 1:
            raise ValueError("max_doc_chars and max_tokens must be >= 1")
        self.model, self.max_doc_chars = model, max_doc_chars
        self.max_tokens, self.temperature = max_tokens, temperature

    def respond(
        self, prompt: str, system: str = "", retriever: Retriever | None = None, k: int = 5
    ) -> Response:
        docs = retriever.search(prompt, k) if retriever is not None else []
        user = rag_prompt(prompt, docs, self.max_doc_chars) if retriever is not None else prompt
        messages = chat(system, user)
        text = self.model.complete(
            messages, max_tokens=self.max_tokens, temperature=self.temperature
        ).text
        queries = [prompt] if retriever is not None else []
        return Response(text, docs, queries, messages + [{"role": "assistant", "content": text}])
