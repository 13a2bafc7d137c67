"""The baselines the HeavyWater/SimplexWater paper compares against, with the same seeding.

- Red-green list (Kirchenbauer et al. 2023, Alg. 2): a keyed gamma-fraction "green" list per
  context; delta is added to green logits; z = (|s|_G - gamma T) / sqrt(T gamma (1 - gamma)).
- Gumbel / exponential sampling (Aaronson 2022): keyed uniforms r_x per context, emit
  argmax_x r_x^(1/p_x); score -log(1 - r_{x_t}) ~ Exp(1) under H0, so the sum is Gamma(T, 1).
- Inverse transform sampling (Kuditipudi et al. 2023): keyed permutation pi and uniform u per
  context, emit the first token in pi-order whose CDF reaches u; score |u - eta(pi(x_t))| with
  eta the normalised rank, smaller under the watermark (the repository's t-test statistic; here
  standardised with its exact null mean and variance for a discrete rank).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from scipy.special import gammaincc
from scipy.stats import norm

from workers.methods.watermark.base import WatermarkDetector, WatermarkLogitsProcessor
from workers.methods.watermark.hashing import context_rng


def _point_mass(vocab_size: int, token: int) -> torch.Tensor:
    q = torch.zeros(vocab_size, dtype=torch.float64)
    q[token] = 1.0
    return q


# -- red-green list ---------------------------------------------------------------------------
def green_mask(
    key: int, context: Sequence[int], context_width: int, vocab_size: int, gamma: float
) -> np.ndarray:
    perm = context_rng(key, context, context_width).permutation(vocab_size)
    mask = np.zeros(vocab_size, dtype=bool)
    mask[perm[: int(gamma * vocab_size)]] = True
    return mask


class RedGreenLogitsProcessor(WatermarkLogitsProcessor):
    def __init__(
        self,
        vocab_size: int,
        *,
        key: int = 15485863,
        gamma: float = 0.25,
        delta: float = 2.0,
        context_width: int = 1,
        mc_samples: int = 64,
        track: bool = False,
    ) -> None:
        super().__init__(vocab_size, key=key, context_width=context_width, track=track)
        if not 0 < gamma < 1:
            raise ValueError(f"gamma must be in (0, 1), got {gamma}")
        if delta < 0:
            raise ValueError(f"delta must be >= 0, got {delta}")
        self.gamma, self.delta, self.mc_samples = gamma, delta, mc_samples

    def _reweight(self, p: torch.Tensor, mask: np.ndarray) -> torch.Tensor:
        w = p * torch.exp(self.delta * torch.from_numpy(mask.astype(np.float64)))
        return w / w.sum()

    def watermarked_distribution(self, p: torch.Tensor, context: Sequence[int]) -> torch.Tensor:
        return self._reweight(
            p, green_mask(self.key, context, self.context_width, self.vocab_size, self.gamma)
        )

    def mean_distribution(self, p: torch.Tensor) -> torch.Tensor:
        # E over random green lists has no closed form: Monte Carlo over `mc_samples` lists
        rng = np.random.default_rng(0)
        n_green = int(self.gamma * self.vocab_size)
        acc = torch.zeros_like(p, dtype=torch.float64)
        for _ in range(self.mc_samples):
            mask = np.zeros(self.vocab_size, dtype=bool)
            mask[rng.permutation(self.vocab_size)[:n_green]] = True
            acc += self._reweight(p, mask)
        return acc / self.mc_samples

    def detector(self, alpha: float = 0.02, ignore_repeated: bool = True) -> RedGreenDetector:
        return RedGreenDetector(
            self.vocab_size,
            key=self.key,
            gamma=self.gamma,
            context_width=self.context_width,
            alpha=alpha,
            ignore_repeated=ignore_repeated,
        )


class RedGreenDetector(WatermarkDetector):
    def __init__(
        self,
        vocab_size: int,
        *,
        key: int = 15485863,
        gamma: float = 0.25,
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
        self.gamma = gamma
        self._n_green = int(gamma * vocab_size)

    def token_score(self, token: int, context: Sequence[int]) -> float:
        perm = context_rng(self.key, context, self.context_width).permutation(self.vocab_size)
        return float(token in set(perm[: self._n_green].tolist()))

    def statistic(self, cum_score: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g = self._n_green / self.vocab_size  # the exact green fraction
        z = (cum_score - g * t) / np.sqrt(t * g * (1 - g))
        return z, norm.sf(z)


# -- Gumbel (Aaronson) ------------------------------------------------------------------------
class GumbelLogitsProcessor(WatermarkLogitsProcessor):
    """Distortion-free: for r ~ Unif[0,1]^V, argmax r_x^(1/p_x) is distributed as P."""

    def watermarked_distribution(self, p: torch.Tensor, context: Sequence[int]) -> torch.Tensor:
        r = context_rng(self.key, context, self.context_width).random(self.vocab_size)
        pn = p.numpy()
        with np.errstate(divide="ignore"):
            keys = np.where(pn > 0, np.log(r) / pn, -np.inf)
        return _point_mass(self.vocab_size, int(np.argmax(keys)))

    def detector(self, alpha: float = 0.02, ignore_repeated: bool = True) -> GumbelDetector:
        return GumbelDetector(
            self.vocab_size,
            key=self.key,
            context_width=self.context_width,
            alpha=alpha,
            ignore_repeated=ignore_repeated,
        )


class GumbelDetector(WatermarkDetector):
    def token_score(self, token: int, context: Sequence[int]) -> float:
        r = context_rng(self.key, context, self.context_width).random(self.vocab_size)
        return float(-np.log1p(-r[token]))

    def statistic(self, cum_score: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z = (cum_score - t) / np.sqrt(t)
        return z, gammaincc(t, cum_score)  # P(Gamma(T, 1) >= S): exact p-value


# -- inverse transform sampling (Kuditipudi et al.) -------------------------------------------
def _its_draw(
    key: int, context: Sequence[int], context_width: int, vocab_size: int
) -> tuple[np.ndarray, float]:
    rng = context_rng(key, context, context_width)
    return rng.permutation(vocab_size), float(rng.random())


class InverseTransformLogitsProcessor(WatermarkLogitsProcessor):
    """Distortion-free: u ~ Unif[0,1] inverted through the CDF of P in a keyed token order."""

    def watermarked_distribution(self, p: torch.Tensor, context: Sequence[int]) -> torch.Tensor:
        perm, u = _its_draw(self.key, context, self.context_width, self.vocab_size)
        cdf = np.cumsum(p.numpy()[perm])
        pos = min(int(np.searchsorted(cdf, u * cdf[-1], side="left")), self.vocab_size - 1)
        while p[perm[pos]] == 0 and pos > 0:  # never emit a zero-probability token
            pos -= 1
        return _point_mass(self.vocab_size, int(perm[pos]))

    def detector(
        self, alpha: float = 0.02, ignore_repeated: bool = True
    ) -> InverseTransformDetector:
        return InverseTransformDetector(
            self.vocab_size,
            key=self.key,
            context_width=self.context_width,
            alpha=alpha,
            ignore_repeated=ignore_repeated,
        )


class InverseTransformDetector(WatermarkDetector):
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
        # exact H0 moments of d = |U - eta| with U ~ Unif[0,1], eta uniform on {k / (V-1)}
        eta = np.arange(vocab_size) / (vocab_size - 1)
        self.mu0 = float(np.mean((eta**2 + (1 - eta) ** 2) / 2))
        second = float(np.mean(1 / 3 - eta + eta**2))
        self.var0 = second - self.mu0**2

    def token_score(self, token: int, context: Sequence[int]) -> float:
        perm, u = _its_draw(self.key, context, self.context_width, self.vocab_size)
        rank = int(np.flatnonzero(perm == token)[0])
        return abs(u - rank / (self.vocab_size - 1))

    def statistic(self, cum_score: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z = (self.mu0 * t - cum_score) / np.sqrt(t * self.var0)  # small distances = watermark
        return z, norm.sf(z)
