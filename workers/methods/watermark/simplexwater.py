"""SimplexWater (Tsur et al. 2025): a binary simplex-code score, OT sampling, binomial test.

Tokens and side information are written as n-bit vectors, n = ceil(log2 |V|); side information
ranges over the 2^n - 1 non-zero vectors (the columns of the simplex code's generator matrix)
and f(x, s) = <bin(x), bin(s)> mod 2. Any two distinct non-zero s disagree on exactly half the
tokens, which is what makes the code optimal for the detection objective in the paper (Sec. 4).
Detection (Sec. 4, the repository's detector): z = (sum_t f - T/2) / sqrt(T/4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from scipy.stats import norm

from workers.methods.watermark.base import WatermarkDetector
from workers.methods.watermark.hashing import check_vocab, context_rng
from workers.methods.watermark.ot_watermark import OTWatermarkLogitsProcessor


def code_length(vocab_size: int) -> int:
    """n = ceil(log2 |V|): bits per token index."""
    return max(1, math.ceil(math.log2(check_vocab(vocab_size))))


def simplex_score(x: np.ndarray | int, s: np.ndarray | int) -> np.ndarray | int:
    """f(x, s) = <bin(x), bin(s)> mod 2 = parity of popcount(x AND s); broadcasts."""
    if isinstance(x, (int, np.integer)) and isinstance(s, (int, np.integer)):
        return int(x & s).bit_count() & 1
    v = np.bitwise_and(np.asarray(x, dtype=np.int64), np.asarray(s, dtype=np.int64))
    parity = np.zeros_like(v)
    while np.any(v):
        parity ^= v & 1
        v = v >> 1
    return parity if parity.ndim else int(parity)


def simplex_side_info(key: int, context: Sequence[int], context_width: int, n_bits: int) -> int:
    """s uniform over the non-zero n-bit vectors {1, ..., 2^n - 1}."""
    return 1 + int(context_rng(key, context, context_width).integers((1 << n_bits) - 1))


class SimplexWaterLogitsProcessor(OTWatermarkLogitsProcessor):
    """SimplexWater sampling. `tilt_delta` applies the linear tilt (1 +/- delta) on f = 1 / 0."""

    def __init__(self, vocab_size: int, *, key: int = 15485863, **kwargs) -> None:
        super().__init__(vocab_size, key=key, **kwargs)
        if self.tilt_delta >= 1:
            raise ValueError(
                f"tilt_delta must be < 1 for SimplexWater's linear tilt, got {self.tilt_delta}"
            )
        self.n_bits = code_length(vocab_size)
        self._s_values = np.arange(1, 1 << self.n_bits, dtype=np.int64)

    @property
    def num_side_info(self) -> int:
        return (1 << self.n_bits) - 1

    def side_info(self, context: Sequence[int]) -> int:
        # column index: s - 1 (column j holds the code word of s = j + 1)
        return simplex_side_info(self.key, context, self.context_width, self.n_bits) - 1

    def score_matrix(self, tokens: torch.Tensor) -> torch.Tensor:
        f = simplex_score(tokens.numpy()[:, None], self._s_values[None, :])
        return torch.from_numpy(f.astype(np.float64))

    def ot_cost(self, f: torch.Tensor) -> torch.Tensor:
        return 1.0 - f  # repository: M = 1 - C

    def tilt(self, column: torch.Tensor, f_column: torch.Tensor) -> torch.Tensor:
        return column * (1.0 + self.tilt_delta * (2.0 * f_column - 1.0))

    def detector(self, alpha: float = 0.02, ignore_repeated: bool = True) -> SimplexWaterDetector:
        return SimplexWaterDetector(
            self.vocab_size,
            key=self.key,
            context_width=self.context_width,
            alpha=alpha,
            ignore_repeated=ignore_repeated,
        )


class SimplexWaterDetector(WatermarkDetector):
    """z = (sum_t f(x_t, s_t) - T/2) / sqrt(T/4), p = 1 - Phi(z)."""

    def __init__(
        self,
        vocab_size: int,
        *,
        key: int = 15485863,
        context_width: int = 1,
        alpha: float = 0.02,
        ignore_repeated: bool = True,
    ) -> None:
        super().__init__(
            vocab_size,
            key=key,
            context_width=context_width,
            alpha=alpha,
            ignore_repeated=ignore_repeated,
        )
        self.n_bits = code_length(vocab_size)

    def token_score(self, token: int, context: Sequence[int]) -> float:
        s = simplex_side_info(self.key, context, self.context_width, self.n_bits)
        return float(simplex_score(token, s))

    def statistic(self, cum_score: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z = (cum_score - t / 2.0) / np.sqrt(t / 4.0)
        return z, norm.sf(z)
