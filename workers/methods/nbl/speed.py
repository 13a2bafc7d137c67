"""Prefill / decode throughput and KV-cache size of a causal LM, measured the same way for every variant."""

from __future__ import annotations

import statistics
import time

import torch


def kv_cache_bytes(cache) -> int:
    """Bytes held by keys and values in a `transformers` Cache (DummyLayers hold none)."""
    total = 0
    for layer in getattr(cache, "layers", []):
        for t in (getattr(layer, "keys", None), getattr(layer, "values", None)):
            if isinstance(t, torch.Tensor):
                total += t.numel() * t.element_size()
    return total


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@torch.no_grad()
def measure_generation(
    model, prompt: torch.Tensor, decode_tokens: int = 32, repeats: int = 3
) -> dict[str, float]:
    """Median prefill tokens/s, decode tokens/s and final KV-cache bytes of greedy decoding.

    Prefill is one forward over the (batch, prompt_len) prompt with a fresh cache; decode is
    `decode_tokens` one-token steps reusing the cache. Medians over `repeats` (after one warm-up)
    damp noise from other processes on the machine.
    """
    from transformers import DynamicCache

    model.eval()
    device = next(model.parameters()).device
    prompt = prompt.to(device)
    prefill, decode, kv = [], [], 0
    for r in range(repeats + 1):
        cache = DynamicCache(config=model.config)
        # With every attention block replaced no layer mixes positions, so a token's output depends
        # on that token alone: decode without any cache (transformers cannot build an all-dummy one).
        kw = (
            {"cache": cache, "use_cache": True} if not all(cache.is_dummy) else {"use_cache": False}
        )
        _sync(device)
        t0 = time.perf_counter()
        out = model(input_ids=prompt, **kw)
        _sync(device)
        t1 = time.perf_counter()
        nxt = out.logits[:, -1:].argmax(-1)
        for _ in range(decode_tokens):
            out = model(input_ids=nxt, **kw)
            nxt = out.logits[:, -1:].argmax(-1)
        _sync(device)
        t2 = time.perf_counter()
        if r == 0:
            continue  # warm-up
        prefill.append(prompt.numel() / (t1 - t0))
        decode.append(prompt.shape[0] * decode_tokens / max(t2 - t1, 1e-9))
        kv = kv_cache_bytes(cache)
    return {
        "prefill_tok_s": statistics.median(prefill),
        "decode_tok_s": statistics.median(decode),
        "kv_cache_bytes": float(kv),
    }


def compare_generation(
    models: dict[str, object], prompt: torch.Tensor, decode_tokens: int = 32, repeats: int = 3
) -> dict[str, dict[str, float]]:
    """`measure_generation` for several models, interleaved round by round.

    Interleaving spreads any slow-down from other processes over all models alike, so the
    speed-up ratios taken from one call are fair even on a busy machine.
    """
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in models}
    for m in models.values():  # warm-up
        measure_generation(m, prompt, decode_tokens, repeats=1)
    for _ in range(repeats):
        for name, m in models.items():
            runs[name].append(measure_generation(m, prompt, decode_tokens, repeats=1))
    return {
        name: {key: statistics.median(r[key] for r in rs) for key in rs[0]}
        for name, rs in runs.items()
    }
