"""Token streams and random training windows for causal language modelling."""

from __future__ import annotations

from collections.abc import Sequence

import torch


def encode_documents(tokenizer, texts: Sequence[str]) -> torch.Tensor:
    """Tokenise each document and join them into one stream, each followed by EOS.

    EOS between documents tells the model where one file ends, as in GPT-style pretraining.
    """
    eos = tokenizer.eos_token_id
    if eos is None:
        raise ValueError("tokenizer: needs an eos_token_id to separate documents")
    ids: list[int] = []
    for enc in tokenizer(list(texts), add_special_tokens=False)["input_ids"]:
        ids.extend(enc)
        ids.append(eos)
    return torch.tensor(ids, dtype=torch.long)


def random_windows(
    stream: torch.Tensor, batch_size: int, seq_len: int, generator: torch.Generator
) -> torch.Tensor:
    """`batch_size` windows of `seq_len + 1` tokens at random offsets (inputs and shifted targets)."""
    if stream.numel() < seq_len + 2:
        raise ValueError(
            f"token stream has {stream.numel()} tokens, fewer than seq_len + 2 = {seq_len + 2}"
        )
    starts = torch.randint(0, stream.numel() - seq_len - 1, (batch_size,), generator=generator)
    return torch.stack([stream[s : s + seq_len + 1] for s in starts.tolist()])


def sequential_windows(
    stream: torch.Tensor, seq_len: int, max_windows: int | None = None
) -> torch.Tensor:
    """Non-overlapping windows of `seq_len + 1` tokens covering the stream (evaluation)."""
    n = (stream.numel() - 1) // seq_len
    if max_windows is not None:
        n = min(n, max_windows)
    if n < 1:
        raise ValueError(
            f"token stream has {stream.numel()} tokens, too few for one window of {seq_len}"
        )
    return torch.stack([stream[i * seq_len : (i + 1) * seq_len + 1] for i in range(n)])
