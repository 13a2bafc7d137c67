"""Shared machinery: a sampling-time watermark as a `transformers` LogitsProcessor, and a detector.

A watermark processor replaces the scores by log Q(. | context), the watermarked next-token
distribution; `model.generate(..., do_sample=True, top_k=0, top_p=1.0, temperature=1.0,
logits_processor=LogitsProcessorList([proc]))` then samples from Q. Deterministic schemes
(Gumbel, inverse transform) put all mass on one token.

Detectors score each token given its context, accumulate the per-token scores and turn the
running sum into a z-score and a one-sided p-value at every prefix length, so both the final
p-value and the number of tokens needed to reach p <= alpha come from one pass.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from transformers import LogitsProcessor

from workers.methods.watermark.hashing import check_vocab


@dataclass
class StepRecord:
    """What a processor saw at one generation step (kept when `track=True`)."""

    kl_bias: float  # KL(Qbar || P): distortion of the key-averaged distribution (bits: nats)
    entropy: float  # Shannon entropy of P (nats): the low-entropy regime shows here


def kl_divergence(q: torch.Tensor, p: torch.Tensor) -> float:
    """KL(q || p) in nats for distributions over the same support (0 log 0 = 0)."""
    q = q.to(torch.float64)
    p = p.to(torch.float64)
    mask = q > 0
    return float((q[mask] * (torch.log(q[mask]) - torch.log(p[mask].clamp_min(1e-300)))).sum())


def entropy(p: torch.Tensor) -> float:
    p = p.to(torch.float64)
    mask = p > 0
    return float(-(p[mask] * torch.log(p[mask])).sum())


class WatermarkLogitsProcessor(LogitsProcessor, ABC):
    """Base class: subclasses map (P, context) to the watermarked distribution Q."""

    def __init__(
        self, vocab_size: int, *, key: int = 15485863, context_width: int = 1, track: bool = False
    ) -> None:
        self.vocab_size = check_vocab(vocab_size)
        if context_width < 1:
            raise ValueError(f"context_width must be >= 1, got {context_width}")
        self.key = int(key)
        self.context_width = int(context_width)
        self.track = track
        self.records: list[StepRecord] = []

    @abstractmethod
    def watermarked_distribution(self, p: torch.Tensor, context: Sequence[int]) -> torch.Tensor:
        """Q(. | context): the distribution the next token is drawn from (float64, sums to 1)."""

    def mean_distribution(self, p: torch.Tensor) -> torch.Tensor:
        """E over the key randomness of Q: equals P for unbiased (distortion-free) schemes."""
        return p

    @abstractmethod
    def detector(self) -> WatermarkDetector:
        """The detector holding the same key and parameters."""

    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        if scores.shape[-1] != self.vocab_size:
            raise ValueError(
                f"scores have {scores.shape[-1]} columns but the watermark was built for "
                f"vocab_size={self.vocab_size}"
            )
        # the per-row work is NumPy / small dense algebra: do it on the CPU in float64 whatever
        # device the model runs on, and hand the scores back on the model's device and dtype
        probs = torch.softmax(scores.detach().to("cpu", torch.float64), dim=-1)
        out = torch.empty_like(probs)
        for b in range(scores.shape[0]):
            context = input_ids[b].tolist()  # .tolist() copies from any device
            q = self.watermarked_distribution(probs[b], context)
            if self.track:
                self.records.append(
                    StepRecord(
                        kl_divergence(self.mean_distribution(probs[b]), probs[b]), entropy(probs[b])
                    )
                )
            out[b] = torch.log(q)  # zeros become -inf: never sampled
        return out.to(device=scores.device, dtype=scores.dtype)


@dataclass
class Detection:
    """Result of a detection test on one text."""

    z: float
    p_value: float
    n_scored: int
    tokens_to_alpha: int | None  # text length at which p first <= alpha (None: never)
    z_path: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    p_path: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))


class WatermarkDetector(ABC):
    """Scores tokens against the key; `detect` runs the one-sided test at every prefix length."""

    def __init__(
        self,
        vocab_size: int,
        *,
        key: int = 15485863,
        context_width: int = 1,
        alpha: float = 0.02,
        ignore_repeated: bool = True,
    ) -> None:
        self.vocab_size = check_vocab(vocab_size)
        self.key = int(key)
        self.context_width = int(context_width)
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        self.alpha = alpha
        # Score each (context window, token) tuple once: a repeated tuple repeats its score
        # exactly, which breaks the independence behind every p-value here and inflates the
        # false-positive rate on repetitive text such as indented code (Fernandez et al. 2023,
        # "Three Bricks", Sec. 4). The papers' repositories score every token
        # (ignore_repeated=False reproduces that).
        self.ignore_repeated = ignore_repeated

    @abstractmethod
    def token_score(self, token: int, context: Sequence[int]) -> float:
        """Per-token score whose sum is the test statistic."""

    @abstractmethod
    def statistic(self, cum_score: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(z, one-sided p-value) after t tokens with cumulative score cum_score (vectorised)."""

    def scores(self, tokens: Sequence[int], context: Sequence[int] = ()) -> np.ndarray:
        """Per-token scores of the scored tokens (repeated tuples dropped if ignore_repeated)."""
        return self._scored(tokens, context)[0]

    def _scored(
        self, tokens: Sequence[int], context: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        full = [int(x) for x in context]
        out, pos, seen = [], [], set()
        for i, tok in enumerate(tokens):
            tok = int(tok)
            if not 0 <= tok < self.vocab_size:
                raise ValueError(
                    f"token {tok} at position {i} is outside the vocabulary (size {self.vocab_size})"
                )
            window = (tuple(full[-self.context_width :]), tok)
            if not (self.ignore_repeated and window in seen):
                out.append(self.token_score(tok, full))
                pos.append(i + 1)
                seen.add(window)
            full.append(tok)
        return np.asarray(out, dtype=np.float64), np.asarray(pos, dtype=np.int64)

    def detect(self, tokens: Sequence[int], context: Sequence[int] = ()) -> Detection:
        """Test `tokens` (the generated part) given the preceding `context` (e.g. the prompt)."""
        s, pos = self._scored(tokens, context)
        if len(s) == 0:
            return Detection(0.0, 1.0, 0, None)
        t = np.arange(1, len(s) + 1, dtype=np.float64)
        z, p = self.statistic(np.cumsum(s), t)
        hits = np.flatnonzero(p <= self.alpha)
        # tokens_to_alpha: text length (all tokens, scored or not) at which p first <= alpha
        first = int(pos[hits[0]]) if hits.size else None
        return Detection(float(z[-1]), float(p[-1]), len(s), first, z, p)
