"""A small character-level Llama trained from scratch on (prompt, target) pairs.

`CharVocab` covers printable ASCII and newline (newline ends an answer). `train_on_pairs`
minimises the next-token loss on the target part only (the prompt is context), which is how
both the rule-following and the direct-answer data are fitted. Any `transformers` causal LM
with a compatible tokenizer can be fine-tuned with the same data on a GPU worker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from transformers import LlamaConfig, LlamaForCausalLM

PAD = 0


class CharVocab:
    def __init__(self) -> None:
        self.chars = "\x00\n" + "".join(chr(c) for c in range(32, 127))
        self.index = {c: i for i, c in enumerate(self.chars)}
        self.eos = self.index["\n"]

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        try:
            return [self.index[c] for c in text]
        except KeyError as exc:
            raise ValueError(
                f"character {exc.args[0]!r} is outside the printable-ASCII vocabulary"
            ) from None

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.chars[i] for i in ids if 0 < i < len(self.chars))


def build_model(
    vocab: CharVocab,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 2,
    max_positions: int = 2048,
    seed: int = 0,
) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        max_position_embeddings=max_positions,
        bos_token_id=None,
        eos_token_id=vocab.eos,
        pad_token_id=PAD,
        tie_word_embeddings=True,
    )
    return LlamaForCausalLM(cfg)


def _batch(
    vocab: CharVocab, pairs: Sequence[tuple[str, str]]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    enc = [(vocab.encode(p), vocab.encode(t)) for p, t in pairs]
    width = max(len(p) + len(t) for p, t in enc)
    ids = torch.full((len(enc), width), PAD, dtype=torch.long)
    labels = torch.full((len(enc), width), -100, dtype=torch.long)
    mask = torch.zeros((len(enc), width), dtype=torch.long)
    for i, (p, t) in enumerate(enc):
        seq = p + t
        ids[i, : len(seq)] = torch.tensor(seq)
        labels[i, len(p) : len(seq)] = torch.tensor(t)  # loss on the target only
        mask[i, : len(seq)] = 1
    return ids, labels, mask


def train_on_pairs(
    model: LlamaForCausalLM,
    vocab: CharVocab,
    sample: Callable[[np.random.Generator, int], list[tuple[str, str]]],
    *,
    steps: int,
    batch: int,
    lr: float,
    rng: np.random.Generator,
    on_step: Callable[[int, float], None] | None = None,
) -> LlamaForCausalLM:
    """AdamW with cosine decay on batches drawn by `sample(rng, batch)`."""
    if steps <= 0:
        return model
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    model.train()
    for step in range(steps):
        ids, labels, mask = _batch(vocab, sample(rng, batch))
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + np.cos(np.pi * step / steps))
        opt.step()
        if on_step is not None:
            on_step(step, float(loss.detach()))
    model.eval()
    return model


@torch.no_grad()
def greedy_complete(
    model: LlamaForCausalLM, vocab: CharVocab, prompts: Sequence[str], max_new: int
) -> list[str]:
    """Greedy continuations up to the first newline. Prompts are grouped by length so no
    padding (and no position-id shift) is ever needed."""
    out: dict[int, str] = {}
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(prompts):
        groups.setdefault(len(p), []).append(i)
    for idx in groups.values():
        ids = torch.tensor([vocab.encode(prompts[i]) for i in idx], dtype=torch.long)
        gen = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=max_new,
            eos_token_id=vocab.eos,
            pad_token_id=PAD,
        )
        for row, i in zip(gen[:, ids.shape[1] :].tolist(), idx, strict=False):
            text = vocab.decode(row)
            out[i] = text.split("\n", 1)[0]
    return [out[i] for i in range(len(prompts))]
