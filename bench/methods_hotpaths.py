"""Method hot paths against an obvious baseline and against what this machine allows, in one
run: peak FLOP/s (a large float32/float64 matmul) and memory bandwidth (a large copy) are
measured first, then each hot path reports its time per unit of work, its achieved rate and
the ratio to the peak, and the same work done the obvious way.

    .venv/bin/python -m bench.methods_hotpaths            # ~1-2 minutes on 2 cores

  * ZEN propagation (workers/methods/zen): scatter/gather closed form vs the same AX, AAX with
    the dense propagation matrix (the literal formula, O(n^2 d)); bytes moved vs copy bandwidth.
  * NBL calibration (workers/methods/nbl): LayerStats.update (three d x d Gram updates in float64)
    vs the float64 matmul peak; fit_lmmse + cca_bound per layer.
  * Watermark Sinkhorn (workers/methods/watermark/sinkhorn.py): time per iteration vs the two
    K-matvecs' memory traffic at three sizes, before (the old NumPy loop, kept here as the
    baseline: BLAS threads of its own, an extra K @ v per stopping test, a copy of K^T) and
    after, and vs its torch path (`backend="torch"`, what runs on CUDA) on the CPU.
  * Oblique ReLU+Argmin tree (workers/methods/oblique_tree): one soft-objective forward+backward
    step, and a whole anneal_fit stage, vs sklearn's CART fit on the same data.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from bench.platform_common import machine_line


def timeit(fn, repeat: int = 5, warmup: int = 1) -> float:
    """Median seconds of `repeat` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def peaks() -> dict[str, float]:
    out = {}
    for dtype, label in ((torch.float32, "f32"), (torch.float64, "f64")):
        a = torch.randn(2048, 2048, dtype=dtype)
        s = timeit(lambda a=a: a @ a, repeat=3)
        out[f"gflops_{label}"] = 2 * 2048**3 / s / 1e9
    src = torch.randn(64 * 2**20 // 4)  # 64 MiB, far above the caches
    dst = torch.empty_like(src)
    s = timeit(lambda: dst.copy_(src), repeat=5)
    out["copy_gbs"] = 2 * src.numel() * 4 / s / 1e9  # read + write
    return out


def bench_zen(peak: dict, rows: list) -> None:
    from workers.methods.zen.zen import zen_propagate

    g = torch.Generator().manual_seed(0)
    n, m, size, d = 3000, 1500, 8, 128
    # `size` distinct nodes per hyperedge (evenly spaced from a random start): no duplicate
    # incidences, so the dense formula below is the same operator.
    start = torch.randint(0, n, (m,), generator=g)
    v = ((start[:, None] + torch.arange(size) * (n // size)) % n).reshape(-1)
    e = torch.arange(m).repeat_interleave(size)
    H = torch.stack([v, e])
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    s_zen = timeit(lambda: zen_propagate(H, X))

    # The literal formula with dense matrices: A = Dv^-1/2 (H De1 H^T - diag) Dv^-1/2.
    def dense():
        Hm = torch.zeros(n, m, dtype=torch.float64)
        Hm.index_put_((H[0], H[1]), torch.ones(H.shape[1], dtype=torch.float64), accumulate=True)
        dv, de = Hm.sum(1), Hm.sum(0)
        inv = lambda x, p: torch.where(x > 0, x.clamp_min(1e-300) ** -p, torch.zeros_like(x))  # noqa: E731
        A0 = (Hm * inv(de - 1, 1.0)) @ Hm.T
        A0 = A0 - torch.diag(torch.diag(A0))
        Dv = inv(dv, 0.5)
        A = Dv[:, None] * A0 * Dv[None, :]
        return A @ X

    s_dense = timeit(dense, repeat=3)
    prop = zen_propagate(H, X)
    # Useful work: two propagations (AX, AAX), each a gather and a scatter of nnz x d doubles
    # twice (node->edge, edge->node): 8 passes of nnz*d*8 bytes read or written at least.
    nnz = H.shape[1]
    bytes_moved = 2 * 4 * nnz * d * 8
    gbs = bytes_moved / s_zen / 1e9
    check = torch.allclose(dense(), prop.AX, atol=1e-9) if n <= 4000 else None
    rows.append(
        (
            "ZEN propagation (AX and AAX)",
            f"n={n}, m={m}, nnz={nnz}, d={d}, float64",
            f"{1000 * s_zen:.1f} ms",
            f"{gbs:.1f} GB/s ({100 * gbs / peak['copy_gbs']:.0f}% of copy)",
            f"dense A@X (AX only): {1000 * s_dense:.1f} ms = {s_dense / s_zen:.1f}x slower; AX equal: {check}",
        )
    )


def bench_nbl(peak: dict, rows: list) -> None:
    from workers.methods.nbl.linear_fit import LayerStats, cca_bound, fit_lmmse

    d, tokens = 768, 4096
    g = torch.Generator().manual_seed(0)
    X = torch.randn(tokens, d, generator=g)
    Y = 0.3 * X @ torch.randn(d, d, generator=g) / d**0.5 + 0.1 * torch.randn(
        tokens, d, generator=g
    )
    stats = LayerStats(d)
    s_update = timeit(lambda: stats.update(X, Y), repeat=3)
    flops = 3 * 2 * tokens * d * d  # X^T X, Y^T X, Y^T Y
    gf = flops / s_update / 1e9
    s_fit = timeit(lambda: (fit_lmmse(stats), cca_bound(stats)), repeat=3)
    # Obvious baseline: materialise the centred covariances from all samples with numpy.cov
    Xn, Yn = X.double().numpy(), Y.double().numpy()
    s_cov = timeit(lambda: np.cov(np.concatenate([Xn, Yn], 1), rowvar=False), repeat=3)
    rows.append(
        (
            "NBL calibration: LayerStats.update",
            f"{tokens} tokens, d={d}, float64 Gram updates",
            f"{1000 * s_update:.0f} ms ({1e6 * s_update / tokens:.1f} us/token)",
            f"{gf:.1f} GFLOP/s ({100 * gf / peak['gflops_f64']:.0f}% of f64 matmul)",
            f"numpy.cov of [X Y] (2d x 2d): {1000 * s_cov:.0f} ms = {s_cov / s_update:.1f}x; "
            f"fit_lmmse + cca_bound per layer {1000 * s_fit:.0f} ms",
        )
    )


def _sinkhorn_numpy_before(a, b, cost, reg, max_iter, tol):
    """The NumPy loop `sinkhorn` had before issue 13 (the baseline): a contiguous copy of K^T,
    an extra K @ v for every stopping test, BLAS at its own thread count."""
    an = a.numpy().astype(np.float64)
    bn = b.numpy().astype(np.float64)
    c = cost.numpy().astype(np.float64)
    K = np.exp(-(c - c.min()) / reg)
    KT = np.ascontiguousarray(K.T)
    v = np.ones_like(bn)
    for it in range(max_iter):
        u = an / np.maximum(K @ v, 1e-300)
        v = bn / np.maximum(KT @ u, 1e-300)
        if it % 10 == 9 and np.linalg.norm(u * (K @ v) - an) < tol:
            break
    return torch.from_numpy(u[:, None] * K * v[None, :])


# (top-p set size, |S|, iterations): HeavyWater (|S| = 1024) with a peaked next-token
# distribution of the project's 2048-token tiny Llama (top-0.999 set ~120 tokens); the size of
# the first measurement (2000 x 1024, a flat distribution); HeavyWater on a 32k vocabulary with
# a flat-ish distribution (top-0.999 set ~17000 tokens)
SINKHORN_SIZES = ((123, 1024, 200), (2000, 1024, 200), (17000, 1024, 30))


def bench_sinkhorn(peak: dict, rows: list) -> None:
    for k, s, iters in SINKHORN_SIZES:
        rows.append(_sinkhorn_row(peak, k, s, iters))


def _sinkhorn_row(peak: dict, k: int, s: int, iters: int) -> tuple:
    from workers.methods.watermark.sinkhorn import _blas_threads_at_most, sinkhorn

    def sinkhorn_torch(*args):
        return sinkhorn(*args, backend="torch")

    g = torch.Generator().manual_seed(0)
    a = torch.softmax(torch.randn(k, generator=g, dtype=torch.float64), 0)
    b = torch.full((s,), 1.0 / s, dtype=torch.float64)
    cost = -torch.rand(k, s, generator=g, dtype=torch.float64)
    repeat = 3 if k * s > 4e6 else 7

    def per_iter(fn) -> tuple[float, float]:
        """(seconds for `iters` iterations, seconds per iteration without the set-up):
        (t(iters) - t(1)) / (iters - 1). tol=0, so every variant runs all the iterations."""
        full = timeit(lambda: fn(a, b, cost, 0.05, iters, 0.0), repeat=repeat)
        one = timeit(lambda: fn(a, b, cost, 0.05, 1, 0.0), repeat=repeat)
        return full, max(full - one, 1e-9) / (iters - 1)

    after = per_iter(sinkhorn)
    before = per_iter(_sinkhorn_numpy_before)
    with _blas_threads_at_most(torch.get_num_threads()):
        before_1t = per_iter(_sinkhorn_numpy_before)
    torch_cpu = per_iter(sinkhorn_torch)
    P = sinkhorn(a, b, cost, 0.05, iters, 0.0)
    P_before = _sinkhorn_numpy_before(a, b, cost, 0.05, iters, 0.0)
    rel = float((P - P_before).abs().max() / P_before.abs().max())
    # Per iteration two matvecs read K once each: 2 * k * s * 8 bytes.
    gbs = 2 * k * s * 8 / after[1] / 1e9

    def show(x: tuple[float, float]) -> str:
        return f"{1e6 * x[1]:.0f} us/it ({1000 * x[0]:.0f} ms in all)"

    return (
        "Watermark Sinkhorn, `sinkhorn` (NumPy, BLAS at torch's threads)",
        f"K {k} x {s} float64, {iters} iterations",
        show(after),
        f"{gbs:.1f} GB/s ({100 * gbs / peak['copy_gbs']:.0f}% of copy)",
        f"before (old NumPy loop, BLAS {_blas_default_threads()} threads): {show(before)} = "
        f"**{before[1] / after[1]:.1f}x**; old loop, BLAS {torch.get_num_threads()} "
        f"thread(s): {show(before_1t)} = {before_1t[1] / after[1]:.1f}x; `backend='torch'` "
        f"(CPU): {show(torch_cpu)} = {torch_cpu[1] / after[1]:.1f}x; plan max rel. diff vs "
        f"before {rel:.0e}",
    )


def _blas_default_threads() -> str:
    from workers.methods.watermark.sinkhorn import _blas_controllers

    counts = sorted({lib.num_threads for lib in _blas_controllers()})
    return "/".join(map(str, counts)) or "?"


def bench_tree(peak: dict, rows: list) -> None:
    from sklearn.tree import DecisionTreeClassifier

    from workers.methods.oblique_tree.reluargmin import ReluArgminTree, soft_objective

    n, p, depth, classes = 10_000, 16, 6, 4
    g = torch.Generator().manual_seed(0)
    X = torch.rand(n, p, generator=g)
    y = (X[:, :2].sum(1) * 2).long().clamp_max(classes - 1)
    torch.manual_seed(0)
    tree = ReluArgminTree(depth, p, classes)
    opt = torch.optim.AdamW(tree.parameters(), lr=0.01)

    def step():
        opt.zero_grad(set_to_none=True)
        soft_objective(tree, X, y, 50.0, "classification").backward()
        opt.step()

    s_step = timeit(step, repeat=5)
    # forward FLOPs: X A^T (2 n p (2^D-1)) dominates the matmul part; the rest is elementwise
    # over (n, 2^D): memory bound. Bytes: V built level by level, ~2 * n * 2^D * 4 B per level
    # pass plus softmax and backward (~3x forward): a lower bound on traffic.
    traffic = 3 * (2 * depth + 4) * n * 2**depth * 4
    gbs = traffic / s_step / 1e9
    s_cart = timeit(
        lambda: DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X.numpy(), y.numpy()),
        repeat=3,
    )
    rows.append(
        (
            "Oblique tree: one soft-objective step (fwd+bwd+AdamW)",
            f"n={n}, p={p}, depth {depth}, {classes} classes",
            f"{1000 * s_step:.1f} ms",
            f">= {gbs:.1f} GB/s ({100 * gbs / peak['copy_gbs']:.0f}% of copy)",
            f"sklearn CART fit (whole tree): {1000 * s_cart:.1f} ms = {s_cart / s_step:.1f} steps",
        )
    )


BENCHES = {"zen": bench_zen, "nbl": bench_nbl, "sinkhorn": bench_sinkhorn, "tree": bench_tree}


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument(
        "--only",
        default="",
        help=f"comma-separated subset of {','.join(BENCHES)} (default: all)",
    )
    args = p.parse_args()
    only = [x for x in args.only.split(",") if x]
    unknown = sorted(set(only) - set(BENCHES))
    if unknown:
        p.error(f"--only: unknown {unknown}; choose from {list(BENCHES)}")
    torch.set_num_threads(args.threads)
    print(machine_line() + f", torch {torch.__version__} with {torch.get_num_threads()} threads")
    peak = peaks()
    print(
        f"measured peaks: matmul {peak['gflops_f32']:.1f} GFLOP/s f32, {peak['gflops_f64']:.1f} GFLOP/s f64; "
        f"copy {peak['copy_gbs']:.1f} GB/s (read + write)"
    )
    rows: list = []
    for name, fn in BENCHES.items():
        if not only or name in only:
            fn(peak, rows)
    print("| hot path | size | time per unit | achieved vs peak | baseline |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(machine_line())


if __name__ == "__main__":
    main()
