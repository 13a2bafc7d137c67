"""Support objectives L(S) for differentially private best-subset selection (Prastakos et al.).

For a support S (|S| = s) the utility of the exponential mechanism is minus the optimal
regularised loss restricted to S, over a bounded coefficient set:

  least squares  L(S) = min_{supp(b) in S, ||b||_2 <= r}  1/(2n) ||y - X b||^2 + lam/(2n) ||b||^2
  hinge          L(S) = min_{supp(b) in S, ||b||_2 <= r}  1/n  sum_i max(0, 1 - y_i x_i'b) + lam/n ||b||^2

Privacy rests on clipping (the paper's assumptions): every entry of X is clipped to [-b_x, b_x]
and, for least squares, y to [-b_y, b_y]; hinge labels are in {-1, +1}. With a replace-one
neighbouring relation each sample's loss term lies in [0, (b_y + b_x r sqrt(s))^2] (least
squares) or [0, 1 + b_x r sqrt(s)] (hinge) because |x_i'b| <= ||x_{i,S}||_2 ||b||_2 <= b_x sqrt(s) r;
so L(S) moves by at most the sensitivity Delta below, uniformly in S.

Both objectives also give the gradient of the perspective relaxation
c(z) = min_b loss(b) + lam/(2n) sum_j b_j^2 / z_j   (least squares; lam/n for hinge)
at a binary z, which the outer-approximation MIP (mip.py) uses as cutting planes.
"""

from __future__ import annotations

import math
from typing import Literal, Protocol

import numpy as np
from scipy.optimize import brentq

Loss = Literal["least_squares", "hinge"]
GRAM_MAX_P = 2000  # above this many features X'X is not precomputed


def clip_data(
    X: np.ndarray, y: np.ndarray, b_x: float, b_y: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Clip entries of X to [-b_x, b_x] and (when b_y is given) y to [-b_y, b_y]."""
    if b_x <= 0:
        raise ValueError(f"b_x must be positive, got {b_x}")
    Xc = np.clip(np.asarray(X, dtype=float), -b_x, b_x)
    yc = np.asarray(y, dtype=float)
    if b_y is not None:
        if b_y <= 0:
            raise ValueError(f"b_y must be positive, got {b_y}")
        yc = np.clip(yc, -b_y, b_y)
    return Xc, yc


def sensitivity(loss: Loss, n: int, s: int, r: float, b_x: float, b_y: float = 1.0) -> float:
    """Sensitivity Delta of L(S) under replace-one neighbours (see the module docstring)."""
    if n < 1 or s < 1:
        raise ValueError(f"n and s must be >= 1, got n={n}, s={s}")
    if loss == "least_squares":
        return (b_y + b_x * r * math.sqrt(s)) ** 2 / (2.0 * n)
    if loss == "hinge":
        return (1.0 + b_x * r * math.sqrt(s)) / n
    raise ValueError(f"loss must be 'least_squares' or 'hinge', got {loss!r}")


class SupportObjective(Protocol):
    p: int
    n: int

    def value(self, support: tuple[int, ...]) -> float: ...

    def correlations(self) -> np.ndarray: ...

    def cut(self, support: tuple[int, ...]) -> tuple[float, np.ndarray]: ...


class LeastSquaresObjective:
    """L(S) for ridge-regularised least squares on an l2 ball, solved exactly per support.

    The restricted problem is (A + tau I) b = X_S'y with tau = lam, or, when that solution leaves
    the ball, tau > lam chosen so that ||b|| = r (the ball's KKT condition); tau is found by a
    root search on the eigen-decomposition of A = X_S'X_S.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, lam: float = 1.0, r: float = 1.1) -> None:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float).ravel()
        if X.ndim != 2 or X.shape[0] != y.shape[0]:
            raise ValueError(f"X must be (n, p) and y (n,), got {X.shape} and {y.shape}")
        if lam < 0 or r <= 0:
            raise ValueError(f"lam must be >= 0 and r > 0, got lam={lam}, r={r}")
        self.n, self.p = X.shape
        self.lam, self.r = float(lam), float(r)
        # The p x p Gram matrix makes each L(S) a tiny s x s problem; above GRAM_MAX_P it would
        # not fit in memory (p = 10^4: 800 MB), so its needed blocks come from X on demand.
        self.X = X
        self.G = X.T @ X if self.p <= GRAM_MAX_P else None
        self.c = X.T @ y
        self.yy = float(y @ y)
        self._cache: dict[tuple[int, ...], tuple[float, np.ndarray]] = {}

    def solve(self, support: tuple[int, ...]) -> tuple[float, np.ndarray]:
        """(L(S), b_S) for the sorted support tuple S."""
        key = tuple(sorted(support))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        idx = np.array(key, dtype=int)
        A = self.G[np.ix_(idx, idx)] if self.G is not None else self.X[:, idx].T @ self.X[:, idx]
        b = self.c[idx]
        evals, Q = np.linalg.eigh(A)
        evals = np.maximum(evals, 0.0)
        bt = Q.T @ b

        def beta(tau: float) -> np.ndarray:
            return Q @ (bt / (evals + tau))

        tau = self.lam
        if tau <= 0 and evals.min() <= 1e-12:
            tau = 1e-12  # singular restricted Gram without ridge: tiny ridge for a unique solution
        if np.linalg.norm(beta(tau)) > self.r:
            hi = max(tau, np.linalg.norm(b) / self.r) * 2 + 1e-12
            tau = brentq(
                lambda t: np.linalg.norm(beta(t)) - self.r, tau, hi, xtol=1e-14, rtol=1e-14
            )
        coef = beta(tau)
        val = (coef @ A @ coef - 2 * coef @ b + self.yy) / (2 * self.n) + self.lam / (
            2 * self.n
        ) * coef @ coef
        self._cache[key] = (float(val), coef)
        return float(val), coef

    def value(self, support: tuple[int, ...]) -> float:
        return self.solve(support)[0]

    def correlations(self) -> np.ndarray:
        """X'y, used to seed the MIP with the most correlated columns."""
        return self.c

    def cut(self, support: tuple[int, ...]) -> tuple[float, np.ndarray]:
        """(c(z), grad c(z)) at the binary z of `support` (Bertsimas & Van Parys style cut).

        On S: dc/dz_j = -lam/(2n) b_j^2; off S the limit z_j -> 0 of the envelope gradient is
        -(X_j'res)^2 / (2 n lam), res = y - X_S b_S.
        """
        if self.lam <= 0:
            raise ValueError(
                "the MIP cuts need lam > 0 (the perspective gradient is -inf at lam=0)"
            )
        key = tuple(sorted(support))
        val, coef = self.solve(key)
        idx = np.array(key, dtype=int)
        XtXS = self.G[:, idx] if self.G is not None else self.X.T @ self.X[:, idx]
        corr = self.c - XtXS @ coef  # X'res for every column
        grad = -(corr**2) / (2 * self.n * self.lam)
        grad[idx] = -self.lam / (2 * self.n) * coef**2
        return val, grad


class HingeObjective:
    """L(S) for the ridge-regularised hinge loss (labels in {-1, +1}) on an l2 ball.

    Solved with liblinear's dual coordinate descent (scikit-learn LinearSVC, no intercept):
    min sum_i hinge + lam' ||b||^2 is LinearSVC with C = 1/(2 lam'); the ball is enforced by
    raising lam' (bisection) until ||b|| <= r, which is the ball's KKT condition.
    """

    def __init__(
        self, X: np.ndarray, y: np.ndarray, lam: float = 1.0, r: float = 1.1, tol: float = 1e-8
    ) -> None:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float).ravel()
        if X.ndim != 2 or X.shape[0] != y.shape[0]:
            raise ValueError(f"X must be (n, p) and y (n,), got {X.shape} and {y.shape}")
        if not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError("hinge loss needs labels y in {-1, +1}")
        if lam <= 0 or r <= 0:
            raise ValueError(f"lam and r must be positive, got lam={lam}, r={r}")
        self.X, self.y = X, y
        self.n, self.p = X.shape
        self.lam, self.r, self.tol = float(lam), float(r), tol
        self._cache: dict[tuple[int, ...], tuple[float, np.ndarray, np.ndarray]] = {}

    def _fit(self, Xs: np.ndarray, lam_eff: float) -> np.ndarray:
        from sklearn.svm import LinearSVC

        svc = LinearSVC(
            loss="hinge",
            dual=True,
            fit_intercept=False,
            C=1.0 / (2.0 * lam_eff),
            tol=self.tol,
            max_iter=20000,
        )
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            svc.fit(Xs, self.y)
        return svc.coef_.ravel()

    def _objective(self, Xs: np.ndarray, coef: np.ndarray) -> float:
        margins = 1.0 - self.y * (Xs @ coef)
        return float(np.maximum(margins, 0).sum() / self.n + self.lam / self.n * coef @ coef)

    def solve(self, support: tuple[int, ...]) -> tuple[float, np.ndarray, np.ndarray]:
        """(L(S), b_S, alpha) where alpha approximates the dual variables (margin violators)."""
        key = tuple(sorted(support))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        Xs = self.X[:, list(key)]
        lam_eff = self.lam
        coef = self._fit(Xs, lam_eff)
        if np.linalg.norm(coef) > self.r:
            lo, hi = lam_eff, max(lam_eff, np.linalg.norm(Xs, axis=1).sum() / (2 * self.r)) * 1.01
            for _ in range(20):  # geometric bisection: ||b(lam')|| is non-increasing in lam'
                mid = float(np.sqrt(lo * hi))
                if np.linalg.norm(self._fit(Xs, mid)) > self.r:
                    lo = mid
                else:
                    hi = mid
            lam_eff = hi
            coef = self._fit(Xs, lam_eff)
            coef *= min(1.0, self.r / max(np.linalg.norm(coef), 1e-300))
        alpha = (self.y * (Xs @ coef) < 1.0).astype(float)
        out = (self._objective(Xs, coef), coef, alpha)
        self._cache[key] = out
        return out

    def value(self, support: tuple[int, ...]) -> float:
        return self.solve(support)[0]

    def correlations(self) -> np.ndarray:
        """X'y, used to seed the MIP with the most correlated columns."""
        return self.X.T @ self.y

    def cut(self, support: tuple[int, ...]) -> tuple[float, np.ndarray]:
        """Perspective cut; off S uses -(sum_i alpha_i y_i x_ij)^2 / (4 n lam) (approximate alpha)."""
        key = tuple(sorted(support))
        val, coef, alpha = self.solve(key)
        u = self.X.T @ (alpha * self.y)
        grad = -(u**2) / (4 * self.n * self.lam)
        grad[list(key)] = -self.lam / self.n * coef**2
        return val, grad


def make_objective(
    loss: Loss, X: np.ndarray, y: np.ndarray, lam: float, r: float
) -> SupportObjective:
    if loss == "least_squares":
        return LeastSquaresObjective(X, y, lam=lam, r=r)
    if loss == "hinge":
        return HingeObjective(X, y, lam=lam, r=r)
    raise ValueError(f"loss must be 'least_squares' or 'hinge', got {loss!r}")
