"""Sinkhorn's two code paths (NumPy on the CPU, torch elsewhere) against the plain loop."""

import importlib

import numpy as np
import pytest
import torch

# the module (the package re-exports the function under the same name)
sk = importlib.import_module("workers.methods.watermark.sinkhorn")
sinkhorn = sk.sinkhorn


def _reference(a, b, C, reg, max_iter, tol):
    """The textbook matrix-scaling loop: (plan, iterations run)."""
    a, b, C = a.numpy(), b.numpy(), C.numpy()
    K = np.exp(-(C - C.min()) / reg)
    v = np.ones_like(b)
    for it in range(max_iter):
        u = a / np.maximum(K @ v, 1e-300)
        v = b / np.maximum(K.T @ u, 1e-300)
        if it % 10 == 9 and np.linalg.norm(u * (K @ v) - a) < tol:
            break
    return torch.from_numpy(u[:, None] * K * v[None, :]), it + 1


def _problem(k, s, seed, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    a = torch.softmax(2.0 * torch.randn(k, generator=g, dtype=torch.float64), 0)
    b = torch.full((s,), 1.0 / s, dtype=torch.float64)
    C = scale * torch.rand(k, s, generator=g, dtype=torch.float64)
    return a, b, C


@pytest.mark.parametrize("k,s", [(7, 5), (60, 256), (300, 511)])
def test_both_paths_give_the_reference_plan_and_marginals(k, s):
    a, b, C = _problem(k, s, seed=k)
    tol = 1e-7
    ref, n_iter = _reference(a, b, C, 0.05, 2000, tol)
    assert 10 < n_iter < 2000  # stopped by the test, not by max_iter
    # one test earlier gives a different plan: the comparison below sees the iteration count
    early, _ = _reference(a, b, C, 0.05, n_iter - 10, 0.0)
    assert not torch.allclose(early, ref, rtol=1e-9, atol=0)
    P_np = sinkhorn(a, b, C, 0.05, 2000, tol)
    P_t = sinkhorn(a, b, C, 0.05, 2000, tol, backend="torch")
    for P in (P_np, P_t):
        assert P.dtype == torch.float64 and P.device.type == "cpu" and P.shape == (k, s)
        assert torch.allclose(P, ref, rtol=1e-9, atol=0)
        assert torch.allclose(P.sum(0), b, rtol=0, atol=1e-14)  # last update: columns exact
        assert float(torch.linalg.vector_norm(P.sum(1) - a)) < tol
    assert torch.allclose(P_np, P_t, rtol=1e-12, atol=0)


def test_fixed_iterations_and_input_dtypes():
    a, b, C = _problem(40, 64, seed=3)
    ref, n_iter = _reference(a, b, C, 0.1, 25, 0.0)
    assert n_iter == 25
    assert torch.allclose(sinkhorn(a, b, C, 0.1, 25, 0.0, device="cpu"), ref, rtol=1e-9, atol=0)
    # float32 inputs are iterated in float64: the plan of the same numbers in float64
    a32, b32, C32 = a.float(), b.float(), C.float()
    ref32, _ = _reference(a32.double(), b32.double(), C32.double(), 0.1, 25, 0.0)
    for P in (
        sinkhorn(a32, b32, C32, 0.1, 25, 0.0),
        sinkhorn(a32, b32, C32, 0.1, 25, 0.0, backend="torch"),
    ):
        assert P.dtype == torch.float64
        assert torch.allclose(P, ref32, rtol=1e-9, atol=0)
    # the caller's cost is not modified (K is built in a copy)
    C0 = C.clone()
    sinkhorn(a, b, C, 0.1, 25, 0.0)
    sinkhorn(a, b, C, 0.1, 25, 0.0, backend="torch")
    assert torch.equal(C, C0)


def test_bad_backend():
    a, b, C = _problem(3, 4, seed=0)
    with pytest.raises(ValueError, match="backend"):
        sinkhorn(a, b, C, 0.1, backend="jax")
    with pytest.raises(ValueError, match="CPU"):
        sinkhorn(a, b, C, 0.1, device="meta", backend="numpy")


def test_blas_threads_lowered_to_torch_threads_and_restored(monkeypatch):
    libs = sk._blas_controllers()
    if not libs:
        pytest.skip("threadpoolctl sees no BLAS library")
    before = [lib.num_threads for lib in libs]
    seen = []
    inner = sk._scale_numpy

    def spy(*args):
        seen.append([lib.num_threads for lib in libs])
        return inner(*args)

    monkeypatch.setattr(sk, "_scale_numpy", spy)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 1)
    a, b, C = _problem(20, 30, seed=1)
    sinkhorn(a, b, C, 0.1, 20, 0.0)
    assert seen == [[min(n, 1) for n in before]]
    assert [lib.num_threads for lib in libs] == before


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_input_runs_there_and_matches_cpu():
    a, b, C = _problem(300, 1024, seed=5)
    P_cpu = sinkhorn(a, b, C, 0.05, 2000, 1e-7)
    P_gpu = sinkhorn(a.cuda(), b.cuda(), C.cuda(), 0.05, 2000, 1e-7)
    assert P_gpu.device.type == "cuda" and P_gpu.dtype == torch.float64
    assert torch.allclose(P_gpu.cpu(), P_cpu, rtol=1e-9, atol=0)
    # CPU inputs iterated on the GPU come back on the CPU
    P_dev = sinkhorn(a, b, C, 0.05, 2000, 1e-7, device="cuda")
    assert P_dev.device.type == "cpu" and torch.allclose(P_dev, P_cpu, rtol=1e-9, atol=0)
