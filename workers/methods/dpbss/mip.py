"""Best supports by mixed-integer optimisation (outer approximation over HiGHS MILPs).

The paper solves  min_{z in {0,1}^p, sum z = s} c(z)  with an outer-approximation scheme:
c is convex on [0, 1]^p (perspective relaxation), so every evaluated binary z_t gives a valid
cut  eta >= c(z_t) + grad c(z_t)'(z - z_t), and the master problem  min eta  over the cuts is a
MILP (solved here by HiGHS through scipy.optimize.milp). The loop stops when the master's
optimal support has already been evaluated: then its cut is tight and the incumbent is optimal.

Extra linear constraints give the quantities the samplers need:
  * no-good cuts  sum_{j in T} z_j <= s - 1  exclude found supports (top-R: the R best supports);
  * sum_{j in S*} z_j <= s - k  restricts to supports with at least k "mistakes" w.r.t. S*.
Cuts are global, so they are kept across calls and later solves start warm. Only a few cuts
enter the master (those of master iterates and of the best supports the primal heuristic found):
every support the heuristic evaluates would give a valid cut, but thousands of dense rows of
length p make each HiGHS solve slow, and storing them does not fit in memory at p = 10^4.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.optimize import LinearConstraint, milp

from workers.methods.dpbss.objective import SupportObjective

Support = tuple[int, ...]
WARM_CUTS = 8  # cuts of the primal heuristic's best supports added before the first master solve


class SupportMIP:
    """Outer-approximation MIP for the s-sparse support minimising an objective's L(S)."""

    def __init__(
        self, objective: SupportObjective, s: int, max_iter: int = 500, gap_tol: float = 0.0
    ) -> None:
        if not 1 <= s <= objective.p:
            raise ValueError(f"s must be in [1, p={objective.p}], got {s}")
        if gap_tol < 0:
            raise ValueError(f"gap_tol must be >= 0, got {gap_tol}")
        # gap_tol > 0 stops at (incumbent - master bound) <= gap_tol * incumbent, as the paper's
        # code does (relative tolerance 5e-3); 0 runs the outer approximation to optimality.
        self.obj, self.s, self.p, self.max_iter, self.gap_tol = (
            objective,
            s,
            objective.p,
            max_iter,
            gap_tol,
        )
        self._cut_rows: list[np.ndarray] = []  # rows of [-grad, 1] >= c - grad'z_t (active cuts)
        self._cut_rhs: list[float] = []
        self._active: set[Support] = set()  # supports whose cut is in the master problem
        self.values: dict[Support, float] = {}
        self.n_milp = 0

    def evaluate(self, support: Iterable[int]) -> float:
        """L(S) (memoised); the cut at S enters the master only through `_activate`."""
        key = tuple(sorted(int(j) for j in support))
        if key not in self.values:
            self.values[key] = self.obj.value(key)
        return self.values[key]

    def _activate(self, key: Support) -> None:
        """Add the outer-approximation cut at the binary point of `key` to the master."""
        if key in self._active:
            return
        val, grad = self.obj.cut(key)
        z = np.zeros(self.p)
        z[list(key)] = 1.0
        self._cut_rows.append(np.concatenate([-grad, [1.0]]))
        self._cut_rhs.append(val - grad @ z)
        self.values[key] = val
        self._active.add(key)

    def _feasible(self, S: Support, excluded: set[Support], center: Support | None, k: int) -> bool:
        if S in excluded:
            return False
        return center is None or len(set(S) - set(center)) >= k

    def best(
        self,
        excluded: Iterable[Support] = (),
        center: Sequence[int] | None = None,
        min_mistakes: int = 0,
    ) -> tuple[Support, float]:
        """The support minimising L(S) among those not excluded and, if `center` is given, with
        at least `min_mistakes` indices outside `center`."""
        excluded = {tuple(sorted(e)) for e in excluded}
        center_t = tuple(sorted(center)) if center is not None else None
        if center_t is not None and min_mistakes > min(self.s, self.p - self.s):
            raise ValueError(f"no support has {min_mistakes} mistakes for s={self.s}, p={self.p}")
        if not self.values:  # seed with the s columns most correlated with the response
            self.evaluate(np.argsort(-np.abs(self.obj.correlations()))[: self.s])
        self._local_search(excluded, center_t, min_mistakes)
        warm = sorted(
            (v, T)
            for T, v in self.values.items()
            if self._feasible(T, excluded, center_t, min_mistakes)
        )[:WARM_CUTS]
        for _, T in warm:  # cuts at the heuristic's best supports: a tight master from the start
            self._activate(T)
        p = self.p
        base_rows, base_lo, base_hi = [np.concatenate([np.ones(p), [0.0]])], [self.s], [self.s]
        for T in excluded:
            row = np.zeros(p + 1)
            row[list(T)] = 1.0
            base_rows.append(row)
            base_lo.append(-np.inf)
            base_hi.append(self.s - 1)
        if center_t is not None and min_mistakes > 0:
            row = np.zeros(p + 1)
            row[list(center_t)] = 1.0
            base_rows.append(row)
            base_lo.append(-np.inf)
            base_hi.append(self.s - min_mistakes)
        cost = np.zeros(p + 1)
        cost[-1] = 1.0
        integrality = np.concatenate([np.ones(p), [0]])
        lb = np.concatenate([np.zeros(p), [0.0]])  # L(S) >= 0 for both losses
        ub = np.concatenate([np.ones(p), [np.inf]])
        for _ in range(self.max_iter):
            A = np.vstack(base_rows + self._cut_rows)
            lo = np.array(base_lo + self._cut_rhs)
            hi = np.array(base_hi + [np.inf] * len(self._cut_rhs))
            res = milp(
                cost,
                integrality=integrality,
                bounds=(lb, ub),
                constraints=LinearConstraint(A, lo, hi),
                options={"mip_rel_gap": 1e-6, "presolve": True},
            )
            self.n_milp += 1
            if res.x is None:
                raise RuntimeError(f"HiGHS MILP failed: {res.message}")
            S = tuple(int(j) for j in np.flatnonzero(res.x[:p] > 0.5))
            if S in self._active:  # tight cut at the master's optimum: S is optimal
                return S, self.values[S]
            self._activate(S)
            if self.gap_tol > 0:
                inc_v, inc = min(
                    (v, T)
                    for T, v in self.values.items()
                    if self._feasible(T, excluded, center_t, min_mistakes)
                )
                if inc_v - res.x[-1] <= self.gap_tol * abs(inc_v):
                    return inc, inc_v
        # iteration cap reached: return the incumbent among evaluated feasible supports
        cands = [
            (v, S)
            for S, v in self.values.items()
            if self._feasible(S, excluded, center_t, min_mistakes)
        ]
        v, S = min(cands)
        return S, v

    def _local_search(self, excluded: set[Support], center: Support | None, k: int) -> None:
        """Primal heuristic: steepest-descent swaps from the best evaluated feasible support
        (or, when none is feasible yet, from a constructed one), so that the master starts with
        a good incumbent and tight cuts; without it a ">= k mistakes" solve at p = 1000 starts
        from cuts far from its region and needs hundreds of master MILPs."""
        feasible = [
            (v, S) for S, v in self.values.items() if self._feasible(S, excluded, center, k)
        ]
        if not feasible:
            start = self._feasible_start(excluded, center, k)
            if start is None:
                return
            feasible = [(self.evaluate(start), start)]
        cur_v, cur = min(feasible)
        for _ in range(self.p):
            best_v, best = cur_v, cur
            for i in cur:
                for j in range(self.p):
                    if j in cur:
                        continue
                    S = tuple(sorted((set(cur) - {i}) | {j}))
                    if self._feasible(S, excluded, center, k):
                        v = self.evaluate(S)
                        if v < best_v:
                            best_v, best = v, S
            if best == cur:
                return
            cur_v, cur = best_v, best

    def _feasible_start(
        self, excluded: set[Support], center: Support | None, k: int
    ) -> Support | None:
        """A feasible support: the centre's s - k most useful columns plus the k columns outside
        it most correlated with the response, else the first feasible of a few random draws."""
        corr = np.abs(self.obj.correlations())
        if center is not None and k > 0:
            keep = sorted(center, key=lambda j: -corr[j])[: self.s - k]
            outside = [j for j in np.argsort(-corr) if j not in center][:k]
            S = tuple(sorted(int(j) for j in keep + outside))
            if self._feasible(S, excluded, center, k):
                return S
        rng = np.random.default_rng(0)
        for _ in range(1000):
            S = tuple(sorted(int(j) for j in rng.choice(self.p, self.s, replace=False)))
            if self._feasible(S, excluded, center, k):
                return S
        return None

    def top_r(self, R: int) -> list[tuple[Support, float]]:
        """The R best supports in increasing L(S), by repeated MIP solves with no-good cuts."""
        total = math.comb(self.p, self.s)
        if not 1 <= R <= total:
            raise ValueError(f"R must be in [1, C(p, s)={total}], got {R}")
        found: list[tuple[Support, float]] = []
        for _ in range(R):
            S, v = self.best(excluded=[f[0] for f in found])
            found.append((S, v))
        return found

    def neighbours(self, center: Sequence[int]) -> list[tuple[Support, float]]:
        """All s(p-s) one-swap neighbours of `center` with L(S) (each also adds its cut, which
        tightens later master problems, as the paper's one-mistake cuts do)."""
        center = tuple(sorted(center))
        outside = [j for j in range(self.p) if j not in center]
        out = []
        for i in center:
            for j in outside:
                S = tuple(sorted((set(center) - {i}) | {j}))
                out.append((S, self.evaluate(S)))
        return out

    def mistake_levels(self, center: Sequence[int]) -> list[tuple[Support, float]]:
        """For k = 0..min(s, p-s): the best support with at least k mistakes w.r.t. `center`.

        k = 1 needs no MIP: it is the better of the best one-swap neighbour and level 2."""
        center = tuple(sorted(center))
        kmax = min(self.s, self.p - self.s)
        out = [(center, self.evaluate(center))]
        if kmax == 0:
            return out
        nb = min(self.neighbours(center), key=lambda t: t[1])
        deeper = [self.best(center=center, min_mistakes=k) for k in range(2, kmax + 1)]
        level1 = min([nb] + deeper[:1], key=lambda t: t[1])
        return out + [level1] + deeper


def enumerate_supports(
    objective: SupportObjective, s: int, limit: int = 200_000
) -> tuple[list[Support], np.ndarray]:
    """Every s-subset of {0..p-1} with its L(S) (exhaustive check for small p)."""
    total = math.comb(objective.p, s)
    if total > limit:
        raise ValueError(
            f"C(p={objective.p}, s={s}) = {total} supports exceeds the enumeration limit {limit}"
        )
    supports = list(itertools.combinations(range(objective.p), s))
    return supports, np.array([objective.value(S) for S in supports])
