"""Entropic optimal transport (Sinkhorn) and top-p filtering for the OT watermarks.

HeavyWater and SimplexWater (Tsur et al., Sec. 3) sample the next token from the column of the
realised side information s of an OT coupling between the model's next-token distribution P_X
(restricted to its top-p set) and the uniform distribution P_S over side information, with cost
-f(x, s). The coupling is computed with Sinkhorn's entropic regularisation (Cuturi 2013).
"""

from __future__ import annotations

import numpy as np
import torch


def top_p_indices(p: torch.Tensor, top_p: float) -> torch.Tensor:
    """Indices of the smallest set of most likely tokens whose total mass reaches `top_p`."""
    if not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    sorted_p, order = torch.sort(p, descending=True)
    cum = torch.cumsum(sorted_p, dim=0)
    # keep every token up to and including the first one at which the mass reaches top_p
    n_keep = (
        int(torch.searchsorted(cum, torch.tensor(top_p * float(cum[-1]), dtype=cum.dtype)).item())
        + 1
    )
    n_keep = max(1, min(n_keep, int((p > 0).sum().item())))
    return order[:n_keep]


def sinkhorn(
    a: torch.Tensor,
    b: torch.Tensor,
    cost: torch.Tensor,
    reg: float,
    max_iter: int = 2000,
    tol: float = 1e-5,
) -> torch.Tensor:
    """Entropic OT plan argmin <P, C> - reg * H(P) with marginals P 1 = a, P^T 1 = b.

    Matrix-scaling form in float64 NumPy (small dense matrices: far less per-iteration overhead
    than torch on CPU). The costs used here stay below ~60 * reg, so the Gibbs kernel
    exp(-C / reg) cannot underflow. Stops when the row-marginal L2 error is below `tol`; the
    last update is on the columns, so the column marginal is exact.
    """
    if reg <= 0:
        raise ValueError(f"reg (Sinkhorn regulariser) must be > 0, got {reg}")
    if tuple(cost.shape) != (a.numel(), b.numel()):
        raise ValueError(f"cost has shape {tuple(cost.shape)}, expected {(a.numel(), b.numel())}")
    an = a.detach().cpu().numpy().astype(np.float64)
    bn = b.detach().cpu().numpy().astype(np.float64)
    c = cost.detach().cpu().numpy().astype(np.float64)
    K = np.exp(-(c - c.min()) / reg)  # shifting C by a constant leaves the plan unchanged
    KT = np.ascontiguousarray(K.T)
    v = np.ones_like(bn)
    for it in range(max_iter):
        u = an / np.maximum(K @ v, 1e-300)
        v = bn / np.maximum(KT @ u, 1e-300)
        # POT's `ot.sinkhorn` criterion (what the paper's code calls): L2 norm of the marginal
        # violation, checked every 10 iterations
        if it % 10 == 9 and np.linalg.norm(u * (K @ v) - an) < tol:
            break
    return torch.from_numpy(u[:, None] * K * v[None, :])
