"""Neural Block Linearization (Erdogan, Tonin & Cevher 2025): the math, independent of any model.

For one attention block with input X (the residual stream entering the block) and output Y
(the attention output after o_proj), NBL fits the linear minimum-mean-squared-error map

    Y_hat = W X + b,   W = C_YX C_XX^{-1},   b = E[Y] - W E[X]          (LMMSE, Sec. 3)

and ranks blocks by a CCA bound on its error. Because the block sits on a residual branch,
the layer output is Z = X + Y and predicting Z from X with (I + W) has exactly the same error
as predicting Y with W. With rho_i the canonical correlations between X and Z,

    MSE = E||Z - Z_hat||^2 = tr(C_ZZ^{1/2} (I - R R^T) C_ZZ^{1/2}) <= tr(C_ZZ) * sum_i (1 - rho_i^2)

(R = C_ZZ^{-1/2} C_ZX C_XX^{-1/2}, whose singular values are rho_i; the inequality is
tr(A M) <= lambda_max(A) tr(M) <= tr(A) tr(M) for PSD A, M). The official code ranks layers by
the unscaled sum_i (1 - rho_i^2) ("CCA bound") and reports the scaled one as the MSE bound; we
keep both names. Statistics are accumulated in float64 over streamed batches, so calibration
memory is O(d^2) per layer however many tokens are used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class LayerStats:
    """Running first and second moments of (X, Y) and the mean cosine(X, X + Y) for one block."""

    dim: int
    n: int = 0
    sum_x: torch.Tensor = field(init=False)
    sum_y: torch.Tensor = field(init=False)
    sxx: torch.Tensor = field(init=False)
    syx: torch.Tensor = field(init=False)
    syy: torch.Tensor = field(init=False)
    cos_sum: float = 0.0

    def __post_init__(self) -> None:
        d = self.dim
        z = dict(dtype=torch.float64)
        self.sum_x, self.sum_y = torch.zeros(d, **z), torch.zeros(d, **z)
        self.sxx, self.syx, self.syy = (
            torch.zeros(d, d, **z),
            torch.zeros(d, d, **z),
            torch.zeros(d, d, **z),
        )

    def update(self, X: torch.Tensor, Y: torch.Tensor) -> None:
        """Add tokens: X and Y are (..., d); every leading position is one sample.

        Moments accumulate in float64 on the activations' device (a GPU for real models: the
        d x d products are the expensive part), starting from the first call.
        """
        X = X.detach().reshape(-1, self.dim).to(torch.float64)
        Y = Y.detach().reshape(-1, self.dim).to(torch.float64)
        if self.n == 0 and self.sxx.device != X.device:
            for name in ("sum_x", "sum_y", "sxx", "syx", "syy"):
                setattr(self, name, getattr(self, name).to(X.device))
        if X.shape != Y.shape:
            raise ValueError(
                f"X and Y must have the same shape, got {tuple(X.shape)} and {tuple(Y.shape)}"
            )
        self.n += X.shape[0]
        self.sum_x += X.sum(0)
        self.sum_y += Y.sum(0)
        self.sxx += X.T @ X
        self.syx += Y.T @ X
        self.syy += Y.T @ Y
        # LLM-Drop's importance score is 1 - cos(X, X + Y), averaged over tokens
        self.cos_sum += float(torch.nn.functional.cosine_similarity(X, X + Y, dim=-1).sum())

    def moments(self) -> dict[str, torch.Tensor]:
        """Means and unbiased covariances C_XX, C_YX, C_YY."""
        if self.n < 2:
            raise ValueError("LayerStats: need at least two samples")
        n = self.n
        mx, my = self.sum_x / n, self.sum_y / n
        cxx = (self.sxx - n * torch.outer(mx, mx)) / (n - 1)
        cyx = (self.syx - n * torch.outer(my, mx)) / (n - 1)
        cyy = (self.syy - n * torch.outer(my, my)) / (n - 1)
        return {"mx": mx, "my": my, "cxx": cxx, "cyx": cyx, "cyy": cyy}

    @property
    def mean_cosine(self) -> float:
        return self.cos_sum / max(1, self.n)


def stats_from_samples(X: torch.Tensor, Y: torch.Tensor) -> LayerStats:
    """LayerStats of explicit (N, d) samples (tests, small data)."""
    stats = LayerStats(X.shape[-1])
    stats.update(X, Y)
    return stats


def _ridge(c: torch.Tensor, ridge: float) -> torch.Tensor:
    # Scale-free regulariser: ridge * mean eigenvalue, so one default fits any activation scale.
    d = c.shape[0]
    return c + ridge * (torch.trace(c) / d).clamp_min(1e-12) * torch.eye(
        d, dtype=c.dtype, device=c.device
    )


def fit_lmmse(stats: LayerStats, ridge: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """(W, b) of the LMMSE map Y ~ W X + b, with a small ridge on C_XX for a stable solve."""
    m = stats.moments()
    # W = C_YX C_XX^{-1}  <=>  C_XX W^T = C_XY (solve instead of inverting)
    W = torch.linalg.solve(_ridge(m["cxx"], ridge), m["cyx"].T).T
    b = m["my"] - W @ m["mx"]
    return W, b


def lmmse_mse(stats: LayerStats, W: torch.Tensor, b: torch.Tensor) -> float:
    """Exact mean over samples of ||Y - (W X + b)||^2 from the stored moments."""
    m = stats.moments()
    n = stats.n
    scale = (n - 1) / n  # covariances are unbiased; the empirical MSE divides by n
    err_mean = m["my"] - W @ m["mx"] - b
    cov_term = torch.trace(m["cyy"] - W @ m["cyx"].T - m["cyx"] @ W.T + W @ m["cxx"] @ W.T) * scale
    return float(cov_term + err_mean @ err_mean)


def _inv_sqrt(c: torch.Tensor, eps: float) -> torch.Tensor:
    evals, evecs = torch.linalg.eigh(c)
    floor = eps * evals.abs().max().clamp_min(1e-300)
    return evecs @ torch.diag(evals.clamp_min(floor).rsqrt()) @ evecs.T


@dataclass(frozen=True)
class CCABound:
    rho: torch.Tensor  # canonical correlations between X and Z = X + Y, descending
    bound: float  # sum_i (1 - rho_i^2): the ranking criterion
    mse_bound: float  # tr(C_ZZ) * bound: an upper bound on the LMMSE error E||Y - Y_hat||^2
    trace_czz: float


def cca_bound(stats: LayerStats, eps: float = 1e-10) -> CCABound:
    """Canonical correlations of X and the block output Z = X + Y, and the NBL error bound."""
    m = stats.moments()
    cxx, cyx, cyy = m["cxx"], m["cyx"], m["cyy"]
    czz = cxx + cyx + cyx.T + cyy  # Cov(X + Y)
    czx = cyx + cxx  # Cov(X + Y, X)
    R = _inv_sqrt(czz, eps) @ czx @ _inv_sqrt(cxx, eps)
    rho = torch.linalg.svdvals(R).clamp(0.0, 1.0)
    bound = float((1 - rho**2).sum())
    tr = float(torch.trace(czz))
    return CCABound(rho=rho, bound=bound, mse_bound=bound * tr, trace_czz=tr)
