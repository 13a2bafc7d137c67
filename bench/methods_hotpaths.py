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
    K-matvecs' memory traffic, and vs a plain torch float64 loop (the obvious implementation).
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


def bench_sinkhorn(peak: dict, rows: list) -> None:
    from workers.methods.watermark.sinkhorn import sinkhorn

    k, s = 2000, 1024  # top-p tokens x side-information values
    g = torch.Generator().manual_seed(0)
    a = torch.softmax(torch.randn(k, generator=g, dtype=torch.float64), 0)
    b = torch.full((s,), 1.0 / s, dtype=torch.float64)
    cost = -torch.rand(k, s, generator=g, dtype=torch.float64)
    iters = 200
    s_np = timeit(lambda: sinkhorn(a, b, cost, reg=0.05, max_iter=iters, tol=0.0), repeat=3)

    def torch_loop():
        K = torch.exp(-(cost - cost.min()) / 0.05)
        v = torch.ones_like(b)
        for _ in range(iters):
            u = a / (K @ v)
            v = b / (K.T @ u)
        return u[:, None] * K * v[None, :]

    s_torch = timeit(torch_loop, repeat=3)
    # Per iteration two matvecs read K once each: 2 * k * s * 8 bytes (setup excluded below).
    setup = timeit(lambda: np.exp(-(cost.numpy() - cost.numpy().min()) / 0.05), repeat=3)
    per_iter = max(s_np - setup, 1e-9) / iters
    gbs = 2 * k * s * 8 / per_iter / 1e9
    rows.append(
        (
            "Watermark Sinkhorn step",
            f"K {k} x {s} float64, {iters} iterations",
            f"{1e6 * per_iter:.0f} us / iteration",
            f"{gbs:.1f} GB/s ({100 * gbs / peak['copy_gbs']:.0f}% of copy)",
            f"plain torch loop: {1000 * s_torch:.0f} ms vs {1000 * s_np:.0f} ms = {s_torch / s_np:.2f}x",
        )
    )


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


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(machine_line() + f", torch {torch.__version__} with {torch.get_num_threads()} threads")
    peak = peaks()
    print(
        f"measured peaks: matmul {peak['gflops_f32']:.1f} GFLOP/s f32, {peak['gflops_f64']:.1f} GFLOP/s f64; "
        f"copy {peak['copy_gbs']:.1f} GB/s (read + write)"
    )
    rows: list = []
    for fn in (bench_zen, bench_nbl, bench_sinkhorn, bench_tree):
        fn(peak, rows)
    print("| hot path | size | time per unit | achieved vs peak | baseline |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(machine_line())


if __name__ == "__main__":
    main()
