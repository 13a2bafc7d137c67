"""ChatModel adapter for any OpenAI-compatible `/v1/chat/completions` endpoint (vLLM, Ollama,
llama.cpp server, hosted APIs), using `requests`.

Retries connection errors, timeouts, 429 and 5xx with exponential backoff; other 4xx fail at
once. Errors name the endpoint and status but never the API key. Cost is computed from token
usage when prices per million tokens are given in `ModelSpec.options`
(`price_prompt_per_mtok`, `price_completion_per_mtok`).
"""

from __future__ import annotations

import os
import time
from typing import Any

import requests

from workers.models.base import ChatModel, Completion, ModelSpec, register_adapter


class ModelEndpointError(RuntimeError):
    """The endpoint failed or answered with something that is not a chat completion."""


class OpenAICompatModel(ChatModel):
    def __init__(
        self,
        base_url: str,
        model_id: str,
        api_key: str = "",
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        price_prompt_per_mtok: float | None = None,
        price_completion_per_mtok: float | None = None,
        extra_body: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if not base_url or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url: expected an http(s) URL, got {base_url!r}")
        if not model_id:
            raise ValueError("model_id: required (the model name the endpoint serves)")
        if timeout <= 0 or max_retries < 0:
            raise ValueError("timeout must be > 0 and max_retries >= 0")
        base = base_url.rstrip("/")
        self.url = base + ("/chat/completions" if base.endswith("/v1") else "/v1/chat/completions")
        self.model_id = model_id
        self.name = name or model_id
        self._api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.prices = (price_prompt_per_mtok, price_completion_per_mtok)
        self.extra_body = dict(extra_body or {})
        self._session = requests.Session()

    def __repr__(self) -> str:  # never show the key
        return f"OpenAICompatModel(url={self.url!r}, model_id={self.model_id!r})"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        last = "no attempt made"
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                resp = self._session.post(
                    self.url, json=body, headers=self._headers(), timeout=self.timeout
                )
            except (requests.ConnectionError, requests.Timeout) as exc:
                last = f"{type(exc).__name__}"
                continue
            if resp.status_code == 429 or resp.status_code >= 500:
                last = f"HTTP {resp.status_code}"
                continue
            if resp.status_code >= 400:
                raise ModelEndpointError(f"{self.url}: HTTP {resp.status_code}: {resp.text[:300]}")
            try:
                return resp.json()
            except ValueError:
                raise ModelEndpointError(
                    f"{self.url}: response is not JSON: {resp.text[:200]!r}"
                ) from None
        raise ModelEndpointError(
            f"{self.url}: failed after {self.max_retries + 1} attempts ({last})"
        )

    def _complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None,
    ) -> Completion:
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            **self.extra_body,
        }
        if stop:
            body["stop"] = stop
        data = self._post(body)
        try:
            text = data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise ModelEndpointError(
                f"{self.url}: no choices[0].message.content in the response"
            ) from None
        usage = data.get("usage") or {}
        p_tok, c_tok = usage.get("prompt_tokens"), usage.get("completion_tokens")
        cost = None
        if p_tok is not None and c_tok is not None and all(v is not None for v in self.prices):
            cost = (p_tok * self.prices[0] + c_tok * self.prices[1]) / 1e6
        return Completion(
            text=text, prompt_tokens=p_tok, completion_tokens=c_tok, cost_usd=cost, raw=data
        )


@register_adapter("openai")
def build_openai(spec: ModelSpec) -> OpenAICompatModel:
    """Adapter for kind "openai": key from spec.api_key, else the env var options["api_key_env"]."""
    opts = dict(spec.options)
    key = spec.api_key or os.environ.get(opts.pop("api_key_env", "") or "OPENAI_API_KEY", "")
    known = {
        "timeout",
        "max_retries",
        "backoff",
        "price_prompt_per_mtok",
        "price_completion_per_mtok",
        "extra_body",
    }
    if unknown := set(opts) - known:
        raise ValueError(f"options: unknown key(s) {sorted(unknown)} for an openai model")
    return OpenAICompatModel(spec.base_url, spec.model_id or spec.name, key, name=spec.name, **opts)
