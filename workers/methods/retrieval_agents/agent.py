"""A bounded tool-using search agent with a plain-text action protocol (ReAct-style; Yao et
al. 2023): the model replies `SEARCH: <query>` to search or `ANSWER: <text>` to finish.

Rules (also shown to the model, see protocol.agent_tool_text):
- the first line starting with `SEARCH:` is a search, unless an `ANSWER:` comes before it;
- a reply with neither keyword is taken as the final answer;
- after `max_steps` searches the model is told no searches are left and must answer; a reply
  that still asks to search ends the episode with its text minus the SEARCH line.
"""

from __future__ import annotations

import re

from workers.benchmarks.safety_retrieval.protocol import (
    RESULTS_HEADER,
    Response,
    agent_tool_text,
    format_docs,
)
from workers.methods.retrieval_agents.rag import chat
from workers.models.base import ChatModel
from workers.retrieval.documents import Retriever

_SEARCH = re.compile(r"^\s*SEARCH:\s*(.+?)\s*$", re.M)
_ANSWER = re.compile(r"ANSWER:\s*", re.S)


def parse_action(text: str) -> tuple[str, str]:
    """("search", query) or ("answer", final text)."""
    search, answer = _SEARCH.search(text), _ANSWER.search(text)
    if search and (answer is None or search.start() < answer.start()):
        return "search", search.group(1)
    if answer:
        return "answer", text[answer.end() :].strip()
    return "answer", text.strip()


class SearchAgent:
    """respond(prompt, system, retriever, k): the model decides whether and what to search."""

    def __init__(
        self,
        model: ChatModel,
        max_steps: int = 3,
        max_doc_chars: int = 1500,
        max_tokens: int = 512,
        temperature: float = 0.0,
        source: str = "an external knowledge source",
    ) -> None:
        if max_steps < 1 or max_doc_chars < 1 or max_tokens < 1:
            raise ValueError("max_steps, max_doc_chars and max_tokens must be >= 1")
        self.model, self.max_steps, self.max_doc_chars = model, max_steps, max_doc_chars
        self.max_tokens, self.temperature, self.source = max_tokens, temperature, source
        self.forced_answers = 0  # episodes that hit the step bound

    def _call(self, messages: list[dict[str, str]]) -> str:
        return self.model.complete(
            messages, max_tokens=self.max_tokens, temperature=self.temperature
        ).text

    def respond(
        self, prompt: str, system: str = "", retriever: Retriever | None = None, k: int = 3
    ) -> Response:
        if retriever is None:  # no tool: the agent is the plain model
            messages = chat(system, prompt)
            text = self._call(messages)
            return Response(
                parse_action(text)[1], [], [], messages + [{"role": "assistant", "content": text}]
            )
        tool = agent_tool_text(getattr(retriever, "description", self.source), self.max_steps)
        messages = chat(f"{system}\n\n{tool}".strip(), prompt)
        docs, queries = [], []
        for _ in range(self.max_steps):
            text = self._call(messages)
            messages.append({"role": "assistant", "content": text})
            kind, value = parse_action(text)
            if kind == "answer":
                return Response(value, docs, queries, messages)
            found = retriever.search(value, k)
            queries.append(value)
            docs.extend(found)
            messages.append(
                {
                    "role": "user",
                    "content": f"{RESULTS_HEADER} for {value!r}:\n{format_docs(found, self.max_doc_chars)}",
                }
            )
        self.forced_answers += 1
        messages.append(
            {
                "role": "user",
                "content": "No searches left. Reply now with ANSWER: <your final answer>.",
            }
        )
        text = self._call(messages)
        messages.append({"role": "assistant", "content": text})
        kind, value = parse_action(text)
        final = value if kind == "answer" else _SEARCH.sub("", text).strip()
        return Response(final, docs, queries, messages)
