"""The causal LM the watermark benchmark generates with.

Any `transformers` causal LM with a tokenizer works (pass `(model, tokenizer)` as the run's
model). Without one, the benchmark trains a small character-level `LlamaForCausalLM` from
scratch on the stdlib corpus (a few hundred CPU steps) and caches it in the data cache, keyed
by the corpus hash and the model/training settings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import LlamaConfig, LlamaForCausalLM


class CharTokenizer:
    """Character-level tokenizer with the `encode`/`decode` calls the benchmark uses."""

    def __init__(self, chars: str) -> None:
        # printable ASCII plus newline: rarer characters map to id 0 (unknown), keeping the
        # vocabulary (and the model's softmax) small
        keep = {c for c in set(chars) if c == "\n" or " " <= c <= "~"}
        self.chars = "\x00" + "".join(sorted(keep))
        self.index = {c: i for i, c in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [self.index.get(c, 0) for c in text]

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        return "".join(self.chars[i] if 0 <= i < len(self.chars) else "?" for i in ids)


@dataclass
class LanguageModel:
    model: Any  # a transformers PreTrainedModel with generate()
    tokenizer: Any
    vocab_size: int  # width of the model's logits (may exceed the tokenizer's vocabulary)
    description: str


def from_context_model(obj: Any) -> LanguageModel | None:
    """Accept `(model, tokenizer)` or an object with `.model` and `.tokenizer` attributes."""
    if obj is None:
        return None
    if isinstance(obj, tuple) and len(obj) == 2:
        model, tok = obj
    elif hasattr(obj, "model") and hasattr(obj, "tokenizer"):
        model, tok = obj.model, obj.tokenizer
    else:
        return None
    if not hasattr(model, "generate"):
        return None
    return LanguageModel(model.eval(), tok, int(model.config.vocab_size), type(model).__name__)


def train_char_llama(
    text: str,
    *,
    steps: int,
    hidden: int,
    layers: int,
    seq_len: int,
    batch: int,
    lr: float,
    seed: int,
    cache_dir: Path | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> LanguageModel:
    """Train (or load from `cache_dir`) a tiny char-level Llama on `text`."""
    tok = CharTokenizer(text)
    cfg = LlamaConfig(
        vocab_size=tok.vocab_size,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=max(1, hidden // 32),
        num_key_value_heads=max(1, hidden // 32),
        max_position_embeddings=4 * seq_len,
        bos_token_id=None,
        eos_token_id=None,
        pad_token_id=None,
        tie_word_embeddings=True,
    )
    settings = json.dumps(
        [
            hashlib.sha256(text.encode()).hexdigest(),
            steps,
            hidden,
            layers,
            seq_len,
            batch,
            lr,
            seed,
        ],
        sort_keys=True,
    )
    tag = hashlib.sha256(settings.encode()).hexdigest()[:16]
    torch.manual_seed(seed)
    model = LlamaForCausalLM(cfg)
    path = cache_dir / f"char_llama_{tag}.pt" if cache_dir else None
    if path is not None and path.is_file():
        model.load_state_dict(torch.load(path, weights_only=True))
        return LanguageModel(model.eval(), tok, tok.vocab_size, f"char-Llama (cached {tag})")
    data = torch.tensor(tok.encode(text), dtype=torch.long)
    rng = np.random.default_rng(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    model.train()
    for step in range(steps):
        starts = rng.integers(0, len(data) - seq_len - 1, size=batch)
        x = torch.stack([data[s : s + seq_len] for s in starts])
        loss = model(input_ids=x, labels=x).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for group in opt.param_groups:  # cosine decay: a short run still ends at a low loss
            group["lr"] = lr * 0.5 * (1 + np.cos(np.pi * step / max(1, steps)))
        opt.step()
        if on_step is not None:
            on_step(step, float(loss.detach()))
    model.eval()
    if path is not None:
        torch.save(model.state_dict(), path)
    return LanguageModel(model, tok, tok.vocab_size, f"char-Llama trained {steps} steps ({tag})")


@contextmanager
def single_thread_on_cpu(device: torch.device) -> Iterator[None]:
    """Tiny models on a shared CPU run ~10x faster on one thread (no spin-waiting between
    threads); restore the caller's setting afterwards."""
    if torch.device(device).type != "cpu":
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@torch.no_grad()
def sequence_nll(model: Any, prompt_ids: torch.Tensor, gen_ids: torch.Tensor) -> torch.Tensor:
    """Per-sequence mean negative log-likelihood (nats) of `gen_ids` given `prompt_ids`."""
    device = next(model.parameters()).device  # a GPU worker's model; the ids live on the CPU
    ids = torch.cat([prompt_ids, gen_ids], dim=1).to(device)
    logits = model(input_ids=ids).logits[:, prompt_ids.shape[1] - 1 : -1].to(torch.float64)
    logp = torch.log_softmax(logits, dim=-1).gather(-1, gen_ids.to(device)[..., None])[..., 0]
    return -logp.mean(dim=1).cpu()
