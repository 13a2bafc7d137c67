"""The optimal-transport sampling shared by HeavyWater and SimplexWater (Tsur et al., Sec. 3-4).

Given a score function f(x, s) over tokens x and side information s ~ Unif(S), the watermark
designs the joint P_{X,S} maximising E[f(X, S)] subject to marginals P_X (the LM's next-token
distribution after top-p) and Unif(S): an OT problem with cost -f, solved with Sinkhorn's
entropic regulariser. At generation the realised s (from the keyed context hash) selects the
column P_{X|S=s} of the coupling, which is what the next token is sampled from. Averaged over s
the token law is exactly the row marginal P_X, so the untilted watermark is distortion-free.

The optional tilt (the repository's `tilt` / `tilting_delta`) re-weights the column towards
high-score tokens, trading distortion for detection power.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

import torch

from workers.methods.watermark.base import WatermarkLogitsProcessor
from workers.methods.watermark.sinkhorn import sinkhorn, top_p_indices


class OTWatermarkLogitsProcessor(WatermarkLogitsProcessor):
    """Sample from the column of the realised side information of a Sinkhorn OT coupling."""

    def __init__(
        self,
        vocab_size: int,
        *,
        key: int = 15485863,
        context_width: int = 1,
        top_p: float = 0.999,
        sinkhorn_reg: float = 0.05,
        sinkhorn_iters: int = 2000,
        sinkhorn_tol: float = 1e-5,
        tilt_delta: float = 0.0,
        track: bool = False,
    ) -> None:
        super().__init__(vocab_size, key=key, context_width=context_width, track=track)
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {top_p}")
        if sinkhorn_reg <= 0:
            raise ValueError(f"sinkhorn_reg must be > 0, got {sinkhorn_reg}")
        if tilt_delta < 0:
            raise ValueError(f"tilt_delta must be >= 0, got {tilt_delta}")
        self.top_p = top_p
        self.sinkhorn_reg = sinkhorn_reg
        self.sinkhorn_iters = sinkhorn_iters
        self.sinkhorn_tol = sinkhorn_tol
        self.tilt_delta = tilt_delta

    # -- what each watermark defines ---------------------------------------------------------
    @property
    @abstractmethod
    def num_side_info(self) -> int:
        """|S|: side information is uniform over {0, ..., |S| - 1}."""

    @abstractmethod
    def side_info(self, context: Sequence[int]) -> int:
        """The realised s for this context (keyed hash of the previous tokens)."""

    @abstractmethod
    def score_matrix(self, tokens: torch.Tensor) -> torch.Tensor:
        """f(x, s) for the given tokens (rows) and every s (columns), float64."""

    @abstractmethod
    def ot_cost(self, f: torch.Tensor) -> torch.Tensor:
        """The OT cost the repository feeds to Sinkhorn, a decreasing map of f."""

    @abstractmethod
    def tilt(self, column: torch.Tensor, f_column: torch.Tensor) -> torch.Tensor:
        """Tilted (unnormalised) column; identity when tilt_delta == 0."""

    # -- the coupling --------------------------------------------------------------------------
    def coupling(self, p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(indices of the top-p set, OT plan between P restricted to it and Unif(S))."""
        cached = getattr(self, "_cache", None)
        if cached is not None and cached[0].shape == p.shape and torch.equal(cached[0], p):
            return cached[1], cached[2]  # __call__ asks again for the distortion record
        idx = top_p_indices(p, self.top_p)
        a = p[idx].to(torch.float64)
        a = a / a.sum()
        m = self.num_side_info
        b = torch.full((m,), 1.0 / m, dtype=torch.float64)
        plan = sinkhorn(
            a,
            b,
            self.ot_cost(self.score_matrix(idx)),
            self.sinkhorn_reg,
            self.sinkhorn_iters,
            self.sinkhorn_tol,
        )
        self._cache = (p.clone(), idx, plan)
        return idx, plan

    def watermarked_distribution(self, p: torch.Tensor, context: Sequence[int]) -> torch.Tensor:
        idx, plan = self.coupling(p)
        if idx.numel() == 1:  # a single admissible token: nothing to watermark
            q = torch.zeros(self.vocab_size, dtype=torch.float64)
            q[idx] = 1.0
            return q
        s = self.side_info(context)
        col = plan[:, s].clone()  # P_{X, S=s}; normalised below to P_{X | S=s}
        if self.tilt_delta > 0:
            col = self.tilt(col, self.score_matrix(idx)[:, s])
        q = torch.zeros(self.vocab_size, dtype=torch.float64)
        q[idx] = col / col.sum()
        return q

    def mean_distribution(self, p: torch.Tensor) -> torch.Tensor:
        """Average of P_{X|S=s} over all s: the row marginal (top-p P) unless tilted."""
        idx, plan = self.coupling(p)
        q = torch.zeros(self.vocab_size, dtype=torch.float64)
        if idx.numel() == 1:
            q[idx] = 1.0
            return q
        cols = plan / plan.sum(dim=0, keepdim=True)
        if self.tilt_delta > 0:
            f = self.score_matrix(idx)
            cols = self.tilt(cols, f)
            cols = cols / cols.sum(dim=0, keepdim=True)
        q[idx] = cols.mean(dim=1)
        return q
