"""Synthetic sparse regression / classification data as in the paper's experiments."""

from __future__ import annotations

import numpy as np

CHOLESKY_MAX_P = 2000  # above this many features X is drawn by the AR(1) recursion


def make_sparse_data(
    n: int,
    p: int,
    s: int,
    rho: float = 0.1,
    snr: float = 5.0,
    loss: str = "least_squares",
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X ~ N(0, Sigma) with Sigma_ij = rho^|i-j|; beta* has s entries 1/sqrt(s) at indices
    1, 3, ..., 2s-1; noise scaled so that ||X beta*|| / ||noise|| = sqrt(snr). For "hinge" the
    labels are sign(X beta* + noise). Returns (X, y, true support as a sorted index array)."""
    if not (1 <= s and 2 * s <= p):
        raise ValueError(f"need 1 <= s and 2s <= p (true support at odd indices), got s={s}, p={p}")
    if n < 2 or snr <= 0 or not 0 <= rho < 1:
        raise ValueError(f"need n >= 2, snr > 0, 0 <= rho < 1; got n={n}, snr={snr}, rho={rho}")
    rng = rng or np.random.default_rng()
    if p <= CHOLESKY_MAX_P:
        idx = np.arange(p)
        Sigma = rho ** np.abs(idx[:, None] - idx[None, :])
        X = rng.multivariate_normal(np.zeros(p), Sigma, size=n, method="cholesky")
    else:  # the same law as an AR(1) recursion over columns: no p x p matrix (p up to 10^4)
        E = rng.normal(size=(n, p))
        X = np.empty((n, p))
        X[:, 0] = E[:, 0]
        for j in range(1, p):
            X[:, j] = rho * X[:, j - 1] + np.sqrt(1 - rho**2) * E[:, j]
    support = np.arange(1, 2 * s, 2)
    beta = np.zeros(p)
    beta[support] = 1.0 / np.sqrt(s)
    noise = rng.normal(size=n)
    signal = X @ beta
    noise *= np.linalg.norm(signal) / (np.sqrt(snr) * np.linalg.norm(noise))
    y = signal + noise
    if loss == "hinge":
        y = np.where(y >= 0, 1.0, -1.0)
    elif loss != "least_squares":
        raise ValueError(f"loss must be 'least_squares' or 'hinge', got {loss!r}")
    return X, y, support


def support_f1(selected: np.ndarray, truth: np.ndarray) -> float:
    """F1 between a selected index set and the true support."""
    sel, tru = set(np.asarray(selected).tolist()), set(np.asarray(truth).tolist())
    tp = len(sel & tru)
    if tp == 0:
        return 0.0
    prec, rec = tp / len(sel), tp / len(tru)
    return 2 * prec * rec / (prec + rec)
