"""Entropic optimal transport (Sinkhorn) and top-p filtering for the OT watermarks.

HeavyWater and SimplexWater (Tsur et al., Sec. 3) sample the next token from the column of the
realised side information s of an OT coupling between the model's next-token distribution P_X
(restricted to its top-p set) and the uniform distribution P_S over side information, with cost
-f(x, s). The coupling is computed with Sinkhorn's entropic regularisation (Cuturi 2013).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

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
    *,
    device: torch.device | str | None = None,
    backend: Literal["auto", "numpy", "torch"] = "auto",
) -> torch.Tensor:
    """Entropic OT plan argmin <P, C> - reg * H(P) with marginals P 1 = a, P^T 1 = b.

    Matrix-scaling form in float64. The costs used here stay below ~60 * reg, so the Gibbs
    kernel exp(-C / reg) cannot underflow. Stops when the row-marginal L2 error is below `tol`
    (tested every 10 iterations); the last update is on the columns, so the column marginal is
    exact. Each iteration is two matvecs with K (K v, K^T u); K v of the updated v is kept for
    the next iteration, so the stopping test costs no extra matvec.

    The iterations run on `device` (default: the cost's device), in NumPy on the CPU (less
    per-call overhead than torch for the small top-p sets, OpenBLAS's matvec as fast as torch's
    at the large ones), with NumPy's BLAS held to torch's thread count so that a run set to
    one thread does not also start BLAS threads that fight over its cores; in torch on any
    other device (CUDA), or on the CPU with backend="torch". Both do the same iterations with
    the same stopping rule. The plan is returned as float64 on the cost's device.
    """
    if reg <= 0:
        raise ValueError(f"reg (Sinkhorn regulariser) must be > 0, got {reg}")
    if tuple(cost.shape) != (a.numel(), b.numel()):
        raise ValueError(f"cost has shape {tuple(cost.shape)}, expected {(a.numel(), b.numel())}")
    run_on = torch.device(device) if device is not None else cost.device
    if backend not in ("auto", "numpy", "torch"):
        raise ValueError(f"backend must be 'auto', 'numpy' or 'torch', got {backend!r}")
    if backend == "numpy" and run_on.type != "cpu":
        raise ValueError(f"backend='numpy' runs on the CPU, not on {run_on}")
    K = _gibbs_kernel(cost, reg, run_on)
    if run_on.type == "cpu" and backend != "torch":
        an = a.detach().cpu().numpy().astype(np.float64)
        bn = b.detach().cpu().numpy().astype(np.float64)
        with _blas_threads_at_most(torch.get_num_threads()):
            _scale_numpy(an, bn, K.numpy(), max_iter, tol)  # K becomes the plan (shared memory)
    else:
        a_dev = a.detach().to(run_on, torch.float64)
        _scale_torch(a_dev, b.detach().to(run_on, torch.float64), K, max_iter, tol)
    return K.to(cost.device)


def _gibbs_kernel(cost: torch.Tensor, reg: float, device: torch.device) -> torch.Tensor:
    """K = exp(-(C - min C) / reg), float64, a new tensor on `device` (torch's exp is
    vectorised on the CPU, NumPy's float64 exp is not without AVX-512)."""
    K = cost.detach().to(device, torch.float64, copy=True)
    K -= K.min()  # shifting C by a constant leaves the plan unchanged
    K /= -reg
    return K.exp_()


def _scale_numpy(a: np.ndarray, b: np.ndarray, K: np.ndarray, max_iter: int, tol: float) -> None:
    """`sinkhorn`'s iterations in NumPy; K is scaled in place into the plan u K v."""
    KT = K.T  # a view: BLAS reads K transposed, no second copy of K to evict it from cache
    v = np.ones_like(b)
    Kv = K @ v
    for it in range(max_iter):
        u = a / np.maximum(Kv, 1e-300, out=Kv)
        v = b / np.maximum(KT @ u, 1e-300)
        if it == max_iter - 1:
            break
        Kv = K @ v  # the next iteration's K v, and the stopping test's
        # POT's `ot.sinkhorn` criterion (what the paper's code calls): L2 norm of the marginal
        # violation, checked every 10 iterations
        if it % 10 == 9 and np.linalg.norm(u * Kv - a) < tol:
            break
    K *= u[:, None]
    K *= v[None, :]


def _scale_torch(
    a: torch.Tensor, b: torch.Tensor, K: torch.Tensor, max_iter: int, tol: float
) -> None:
    """`sinkhorn`'s iterations in torch on K's device; K is scaled in place into the plan."""
    v = torch.ones_like(b)
    Kv = K @ v
    for it in range(max_iter):
        u = a / Kv.clamp_min_(1e-300)
        v = b / (K.T @ u).clamp_min_(1e-300)
        if it == max_iter - 1:
            break
        Kv = K @ v  # the next iteration's K v, and the stopping test's
        # POT's `ot.sinkhorn` criterion (what the paper's code calls), as in _scale_numpy
        if it % 10 == 9 and float(torch.linalg.vector_norm(u * Kv - a)) < tol:
            break
    K *= u[:, None]
    K *= v[None, :]


@functools.cache
def _blas_controllers() -> tuple:
    """threadpoolctl's handles on the BLAS libraries NumPy loaded (none without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # a scikit-learn dependency; without it BLAS keeps its own setting
        return ()
    return tuple(ThreadpoolController().select(user_api="blas").lib_controllers)


@contextmanager
def _blas_threads_at_most(n: int) -> Iterator[None]:
    """Lower the BLAS libraries' thread counts to `n` for the block (never raise them)."""
    lowered = []
    for lib in _blas_controllers():
        before = lib.num_threads
        if before > n:
            lib.set_num_threads(n)
            lowered.append((lib, before))
    try:
        yield
    finally:
        for lib, before in lowered:
            lib.set_num_threads(before)
