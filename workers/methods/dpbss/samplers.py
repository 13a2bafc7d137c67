"""Pure epsilon-DP support selection: the exponential mechanism and its MIP-based samplers.

Exponential mechanism (McSherry & Talwar) over all s-subsets S:
    P(S) proportional to exp(-epsilon * L(S) / (2 Delta)),
L from objective.py, Delta its sensitivity. Samplers here:

* `exact_exponential_mechanism`  enumerates all C(p, s) supports (the check for small p).
* `TopRSampler`  (paper, "top-R"): the R best supports (by MIP) keep their exact weight; every
  other support gets the weight of the R-th best, L_(R) <= L(S). This is the exponential
  mechanism for the utility min(L(S), L_(R)), whose sensitivity is still Delta (order statistics
  and minima of Delta-sensitive functions are Delta-sensitive), hence epsilon-DP.
* `MistakesSampler`  (paper, "mistakes"): supports are grouped by swap distance k = |S \\ S*| from
  the MIP optimum S*; group k (C(s,k) C(p-s,k) supports) gets weight from L_k, the best objective
  with at least k mistakes (found by MIP). A group is drawn, then a support from it: the group's
  best support (as in the authors' code) or a uniform one.
* `mcmc_exponential_mechanism`  (Roy, Wang & Tewari): Metropolis-Hastings with swap proposals
  targeting the same distribution; DP only approximately (after mixing).
* `dp_lasso_subsample`  subsample-and-aggregate Lasso with Laplace noise (pure epsilon-DP).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp

from workers.methods.dpbss.mip import Support, SupportMIP, enumerate_supports
from workers.methods.dpbss.objective import SupportObjective


def em_log_weights(values: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    """log of the unnormalised exponential-mechanism weights -epsilon L / (2 Delta)."""
    if epsilon <= 0 or delta <= 0:
        raise ValueError(f"epsilon and delta must be positive, got {epsilon}, {delta}")
    return -epsilon * np.asarray(values, dtype=float) / (2.0 * delta)


def em_probabilities(values: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    logw = em_log_weights(values, epsilon, delta)
    return np.exp(logw - logsumexp(logw))


def exact_exponential_mechanism(
    objective: SupportObjective,
    s: int,
    epsilon: float,
    delta: float,
    n_draws: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, list[Support], np.ndarray]:
    """Draw n_draws supports from the exact mechanism; also return all supports and probabilities."""
    supports, values = enumerate_supports(objective, s)
    probs = em_probabilities(values, epsilon, delta)
    idx = rng.choice(len(supports), size=n_draws, p=probs)
    return np.array([supports[i] for i in idx], dtype=int), supports, probs


def _uniform_support_not_in(
    p: int, s: int, taken: set[Support], rng: np.random.Generator
) -> Support:
    """A uniformly random s-subset outside `taken` (rejection; `taken` is a small fraction)."""
    for _ in range(100_000):
        S = tuple(sorted(int(j) for j in rng.choice(p, size=s, replace=False)))
        if S not in taken:
            return S
    raise RuntimeError("could not draw a support outside the top-R set; R is too close to C(p, s)")


class TopRSampler:
    """Top-R exponential-mechanism sampler (Prastakos, Behdin & Mazumder, Sec. 3)."""

    def __init__(self, mip: SupportMIP, epsilon: float, delta: float, R: int | None = None) -> None:
        self.mip, self.epsilon, self.delta = mip, epsilon, delta
        p, s = mip.p, mip.s
        self.total = math.comb(p, s)
        if (
            R is None
        ):  # paper default: S*, its s(p-s) one-swap neighbours, and the best 2-mistake support
            self.top = self._neighbourhood_top()
        else:
            self.top = mip.top_r(min(R, self.total))
        self.R = len(self.top)
        vals = np.array([v for _, v in self.top])
        logw = em_log_weights(vals, epsilon, delta)
        rest = self.total - self.R
        tail = [logw[-1] + math.log(rest)] if rest > 0 else []
        logw_all = np.concatenate([logw, tail])
        self.probs = np.exp(logw_all - logsumexp(logw_all))  # last entry: "any other support"
        self._taken = {S for S, _ in self.top}

    def _neighbourhood_top(self) -> list[tuple[Support, float]]:
        """Top (s(p-s) + 2) supports, exact when the best >=2-mistake support is no better than
        every one-swap neighbour (checked; otherwise falls back to no-good-cut enumeration)."""
        mip, p, s = self.mip, self.mip.p, self.mip.s
        S0, v0 = mip.best()
        ranked = [(S0, v0)] + mip.neighbours(S0)
        if min(s, p - s) >= 2:
            S2, v2 = mip.best(center=S0, min_mistakes=2)
            if v2 < max(v for _, v in ranked[1:]):
                return mip.top_r(min(len(ranked) + 1, self.total))
            ranked.append((S2, v2))
        return sorted(ranked, key=lambda t: t[1])

    def sample(self, n_draws: int, rng: np.random.Generator) -> np.ndarray:
        idx = rng.choice(len(self.probs), size=n_draws, p=self.probs)
        out = [
            self.top[i][0]
            if i < self.R
            else _uniform_support_not_in(self.mip.p, self.mip.s, self._taken, rng)
            for i in idx
        ]
        return np.array(out, dtype=int)

    def support_probability(self, S: Sequence[int]) -> float:
        """The sampler's probability of returning S (for tests and diagnostics)."""
        key = tuple(sorted(S))
        for i, (T, _) in enumerate(self.top):
            if T == key:
                return float(self.probs[i])
        return float(self.probs[-1] / (self.total - self.R))


class MistakesSampler:
    """Swap-distance ("mistakes") sampler (Prastakos, Behdin & Mazumder, Sec. 3)."""

    def __init__(self, mip: SupportMIP, epsilon: float, delta: float, within: str = "best") -> None:
        if within not in ("best", "uniform"):
            raise ValueError(f"within must be 'best' or 'uniform', got {within!r}")
        p, s = mip.p, mip.s
        self.mip, self.within = mip, within
        self.center, _ = mip.best()
        self.levels = mip.mistake_levels(self.center)  # k = 0..min(s, p-s)
        ks = np.arange(len(self.levels))
        self.sizes = np.array([math.comb(s, k) * math.comb(p - s, k) for k in ks], dtype=float)
        logw = em_log_weights(np.array([v for _, v in self.levels]), epsilon, delta) + np.log(
            self.sizes
        )
        self.probs = np.exp(logw - logsumexp(logw))

    def sample(self, n_draws: int, rng: np.random.Generator) -> np.ndarray:
        ks = rng.choice(len(self.probs), size=n_draws, p=self.probs)
        out = []
        for k in ks:
            if self.within == "best" or k == 0:
                out.append(self.levels[k][0])
            else:
                inside = rng.choice(self.center, size=k, replace=False)
                outside_pool = np.setdiff1d(np.arange(self.mip.p), self.center)
                new = rng.choice(outside_pool, size=k, replace=False)
                out.append(
                    tuple(sorted((set(self.center) - set(inside.tolist())) | set(new.tolist())))
                )
        return np.array(out, dtype=int)


def mcmc_exponential_mechanism(
    objective: SupportObjective,
    s: int,
    epsilon: float,
    delta: float,
    n_draws: int,
    n_iter: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Metropolis-Hastings DP-BSS (Roy, Wang & Tewari): n_draws independent chains of n_iter
    swap moves from random starts; each chain's final state is one draw."""
    p = objective.p
    out = np.empty((n_draws, s), dtype=int)
    for c in range(n_draws):
        S = set(rng.choice(p, size=s, replace=False).tolist())
        cur = objective.value(tuple(sorted(S)))
        for _ in range(n_iter):
            i = int(rng.choice(sorted(S)))
            j = int(rng.integers(p))
            while j in S:  # rejection: uniform over the p - s columns outside S, O(1) for large p
                j = int(rng.integers(p))
            T = (S - {i}) | {j}
            new = objective.value(tuple(sorted(T)))
            # symmetric proposal (s(p-s) swaps from every state): accept with min(1, pi(T)/pi(S))
            if math.log(rng.random() + 1e-300) <= -epsilon * (new - cur) / (2 * delta):
                S, cur = T, new
        out[c] = sorted(S)
    return out


def dp_lasso_subsample(
    X: np.ndarray,
    y: np.ndarray,
    s: int,
    epsilon: float,
    alpha: float,
    n_draws: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Subsample-and-aggregate Lasso selection.

    Split the n rows into m = floor(sqrt(n)) blocks, fit a Lasso on each, keep each block's s
    largest |coefficients| as a 0/1 vote vector, average the votes and add Laplace noise of scale
    2s/(m epsilon) (one changed row changes one block's votes by at most 2s in l1), then return
    the s largest noisy averages. Each draw re-noises the same votes (a fresh epsilon each).
    """
    from sklearn.linear_model import Lasso

    n, p = X.shape
    m = max(1, int(math.isqrt(n)))
    votes = np.zeros((m, p))
    for b, rows in enumerate(np.array_split(np.arange(n), m)):
        coef = Lasso(alpha=alpha, fit_intercept=False, max_iter=5000).fit(X[rows], y[rows]).coef_
        top = np.argsort(-np.abs(coef))[:s]
        votes[b, top[np.abs(coef[top]) > 0]] = 1.0
    avg = votes.mean(axis=0)
    noisy = avg[None, :] + rng.laplace(scale=2.0 * s / (m * epsilon), size=(n_draws, p))
    return np.sort(np.argsort(-noisy, axis=1)[:, :s], axis=1)
