"""Token-level edits for the robustness experiment (random substitution and deletion)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _check_rate(rate: float) -> None:
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be in [0, 1], got {rate}")


def substitute_tokens(
    tokens: Sequence[int], rate: float, vocab_size: int, rng: np.random.Generator
) -> list[int]:
    """Replace each token, independently with probability `rate`, by a uniform random token."""
    _check_rate(rate)
    out = list(int(t) for t in tokens)
    for i in np.flatnonzero(rng.random(len(out)) < rate):
        out[i] = int(rng.integers(vocab_size))
    return out


def delete_tokens(tokens: Sequence[int], rate: float, rng: np.random.Generator) -> list[int]:
    """Delete each token independently with probability `rate`."""
    _check_rate(rate)
    keep = rng.random(len(tokens)) >= rate
    return [int(t) for t, k in zip(tokens, keep, strict=False) if k]
