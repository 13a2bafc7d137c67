"""The adapter interface every registered model implements.

A run that needs a model receives an adapter as `ctx.model`. Adapters for an
OpenAI-compatible endpoint, a local Hugging Face directory and the project's own small models
implement `ChatModel`; methods call only these methods, never a vendor SDK directly.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Completion:
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class Usage:
    """Accumulated token usage and cost of one run, for the run's summary."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens or 0
        self.completion_tokens += completion.completion_tokens or 0
        self.cost_usd += completion.cost_usd or 0.0


class ChatModel(ABC):
    """A chat-style text model. `messages` are OpenAI-style {"role", "content"} dicts."""

    name: str = "model"

    def __init__(self) -> None:
        self.usage = Usage()

    @abstractmethod
    def _complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None,
    ) -> Completion: ...

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
    ) -> Completion:
        completion = self._complete(
            messages, max_tokens=max_tokens, temperature=temperature, stop=stop
        )
        self.usage.add(completion)
        return completion


@dataclass(frozen=True)
class ModelSpec:
    """What the platform stores about a registered model, handed to `build_adapter`.

    kind: "openai" (base_url, model id, api key from env var `api_key_env` or a decrypted
    stored key), "hf_local" (a local directory), or "project" (an artifact path of a model
    the project trained).
    """

    kind: str
    name: str
    base_url: str = ""
    model_id: str = ""
    path: str = ""
    api_key: str = ""
    options: dict[str, Any] = field(default_factory=dict)


_BUILDERS: dict[str, Any] = {}


def register_adapter(kind: str):
    def deco(fn):
        _BUILDERS[kind] = fn
        return fn

    return deco


def build_adapter(spec: ModelSpec) -> ChatModel:
    """Build the adapter for a stored model. Adapter modules register themselves on import."""
    import importlib
    import pkgutil

    import workers.models as pkg

    for info in pkgutil.iter_modules(pkg.__path__, prefix="workers.models."):
        importlib.import_module(info.name)
    try:
        builder = _BUILDERS[spec.kind]
    except KeyError:
        raise ValueError(
            f"no model adapter for kind {spec.kind!r} (known: {sorted(_BUILDERS)})"
        ) from None
    return builder(spec)
