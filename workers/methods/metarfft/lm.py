"""A small character-level Llama trained from scratch on (prompt, target) pairs.

`CharVocab` covers printable ASCII and newline (newline ends an answer). `train_on_pairs`
minimises the next-token loss on the target part only (the prompt is context), which is how
both the rule-following and the direct-answer data are fitted. Any `transformers` causal LM
with its own tokenizer is fine-tuned with the same data and loop by `hf.HFCausalLM`.
`CharLM` bundles model and vocabulary behind the interface the benchmark uses for both.
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


def pad_pairs(
    encoded: Sequence[tuple[Sequence[int], Sequence[int]]], pad_id: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded (input_ids, labels, attention_mask) for (prompt ids, target ids) pairs.

    Labels are -100 on the prompt and the padding: the loss is on the target only."""
    width = max(len(p) + len(t) for p, t in encoded)
    ids = torch.full((len(encoded), width), pad_id, dtype=torch.long)
    labels = torch.full((len(encoded), width), -100, dtype=torch.long)
    mask = torch.zeros((len(encoded), width), dtype=torch.long)
    for i, (p, t) in enumerate(encoded):
        seq = list(p) + list(t)
        ids[i, : len(seq)] = torch.tensor(seq)
        labels[i, len(p) : len(seq)] = torch.tensor(list(t))
        mask[i, : len(seq)] = 1
    return ids, labels, mask


def _batch(
    vocab: CharVocab, pairs: Sequence[tuple[str, str]]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return pad_pairs([(vocab.encode(p), vocab.encode(t)) for p, t in pairs], PAD)


def fit_pairs(
    model: torch.nn.Module,
    make_batch: Callable[[list[tuple[str, str]]], tuple[torch.Tensor, torch.Tensor, torch.Tensor]],
    sample: Callable[[np.random.Generator, int], list[tuple[str, str]]],
    *,
    steps: int,
    batch: int,
    lr: float,
    rng: np.random.Generator,
    on_step: Callable[[int, float], None] | None = None,
) -> torch.nn.Module:
    """AdamW with cosine decay on batches drawn by `sample(rng, batch)` and tensorised by
    `make_batch` (any tokenizer); shared by the char-level model and Hugging Face models."""
    if steps <= 0:
        return model
    device = next(model.parameters()).device
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    model.train()
    for step in range(steps):
        ids, labels, mask = (t.to(device) for t in make_batch(sample(rng, batch)))
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
    return fit_pairs(
        model,
        lambda pairs: _batch(vocab, pairs),
        sample,
        steps=steps,
        batch=batch,
        lr=lr,
        rng=rng,
        on_step=on_step,
    )


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
        ids = ids.to(next(model.parameters()).device)
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


class CharLM:
    """The char-level Llama behind the interface `metarfft_lengthgen` uses for any model
    (train / complete / n_tokens / snapshot / restore; `hf.HFCausalLM` is the other one)."""

    def __init__(self, model: LlamaForCausalLM, vocab: CharVocab | None = None) -> None:
        self.model, self.vocab = model, vocab or CharVocab()

    def train(
        self,
        sample: Callable[[np.random.Generator, int], list[tuple[str, str]]],
        **kwargs,
    ) -> None:
        train_on_pairs(self.model, self.vocab, sample, **kwargs)

    def complete(self, prompts: Sequence[str], max_new: int) -> list[str]:
        return greedy_complete(self.model, self.vocab, prompts, max_new)

    def n_tokens(self, text: str) -> int:
        return len(text)

    def snapshot(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}

    def restore(self, state: dict[str, torch.Tensor]) -> None:
        self.model.load_state_dict(state)
