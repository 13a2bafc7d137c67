"""Exact Shapley values by enumerating all 2^d coalitions, and SVERL's exact characteristics.

Coalition C is a boolean mask over the d state features; row `bits(C) = sum_i C_i 2^i` of a
characteristic table holds v(C). Shapley values (Shapley 1953):

    phi_i = sum_{C subset F \\ {i}} |C|! (d - |C| - 1)! / d!  (v(C + i) - v(C))
"""

from __future__ import annotations

from collections.abc import Callable
from math import factorial

import numpy as np


def coalitions(d: int) -> np.ndarray:
    """All 2^d masks, row k = the binary digits of k (feature i = bit i)."""
    if not 1 <= d <= 24:
        raise ValueError(f"d must be in [1, 24] for exact enumeration, got {d}")
    k = np.arange(1 << d)[:, None]
    return ((k >> np.arange(d)) & 1).astype(bool)


def mask_index(masks: np.ndarray) -> np.ndarray:
    masks = np.asarray(masks, dtype=np.int64)
    return (masks << np.arange(masks.shape[-1])).sum(-1)


def shapley_weights(d: int) -> np.ndarray:
    return np.array([factorial(k) * factorial(d - k - 1) / factorial(d) for k in range(d)])


def shapley_from_table(table: np.ndarray) -> np.ndarray:
    """table (2^d, N, out) of v(C) per state -> Shapley values (N, d, out)."""
    n_c = table.shape[0]
    d = n_c.bit_length() - 1
    if 1 << d != n_c:
        raise ValueError(f"table must have 2^d rows, got {n_c}")
    masks = coalitions(d)
    size = masks.sum(1)
    w = shapley_weights(d)
    phi = np.zeros((table.shape[1], d) + table.shape[2:])
    for i in range(d):
        without = np.flatnonzero(~masks[:, i])
        phi[:, i] = np.tensordot(
            w[size[without]], table[without | (1 << i)] - table[without], axes=(0, 0)
        )
    return phi


def shapley_exact(v: Callable[[np.ndarray], float], d: int) -> np.ndarray:
    """Shapley values of a d-player game given as v(mask) -> value."""
    table = np.array([v(m) for m in coalitions(d)], dtype=float)[:, None, None]
    return shapley_from_table(table)[0, :, 0]


def conditional_table(states: np.ndarray, weights: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Exact behaviour/prediction characteristic on the observed states (SVERL, Beechey et al. 2023).

    v(C)(s) = sum_{s'} p(s' | s'_C = s_C) f(s'), with p the (empirical) steady-state
    distribution `weights` over the unique `states`. Returns (2^d, N, out).
    """
    n, d = states.shape
    table = np.zeros((1 << d, n, f.shape[1]))
    for k, mask in enumerate(coalitions(d)):
        keys = states[:, mask]
        _, inv = np.unique(keys, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        mass = np.bincount(inv, weights=weights)
        num = np.stack([np.bincount(inv, weights=weights * f[:, j]) for j in range(f.shape[1])], 1)
        table[k] = num[inv] / mass[inv, None]
    return table


def outcome_table(
    transitions: tuple, policy: np.ndarray, policy_table: np.ndarray, gamma: float
) -> np.ndarray:
    """Exact outcome characteristic on an enumerable MDP (SVERL-P / FastSVERL outcome explanations).

    v(C)(s) = expected return from s when, in s, the agent acts with the behaviour characteristic
    pi_C(.|s) = policy_table[C, s] and elsewhere follows its policy `policy` (S, A). One linear
    solve of (I - gamma P') V = r' per (C, s): only the row of s changes.
    """
    _, nxt, rew, _ = transitions
    S, A = rew.shape
    P = np.zeros((S, A, S))
    for s in range(S):
        for a in range(A):
            if nxt[s, a] >= 0:
                P[s, a, nxt[s, a]] = 1.0
    P_pi = np.einsum("sa,sat->st", policy, P)
    r_pi = (policy * rew).sum(1)
    out = np.zeros((policy_table.shape[0], S, 1))
    eye = np.eye(S)
    for k in range(policy_table.shape[0]):
        for s in range(S):
            Pm, rm = P_pi.copy(), r_pi.copy()
            Pm[s] = policy_table[k, s] @ P[s]
            rm[s] = policy_table[k, s] @ rew[s]
            out[k, s, 0] = np.linalg.solve(eye - gamma * Pm, rm)[s]
    return out
