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
  * STARK scoring (workers/benchmarks/stark): a generated set of the full release's size (~14.5k
    challenges, the generators' 139 tier-1/2 tasks with equal counts; `--stark-size quick` for
    ~1.4k) with model-like responses (ground truth, perturbed, unparseable, invalid): seconds to
    load (importer), parse and score it, instances/s per family, and, with `--stark-official
    DIR` (a folder holding distance.py of nesl/STARK_Benchmark, kept outside the project),
    STARK's own scoring calls on the same responses and whether they give the same errors.

    .venv/bin/python -m bench.methods_hotpaths --threads 1 --only stark --stark-official DIR
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

    def before_1t(*args):
        with _blas_threads_at_most(torch.get_num_threads()):
            return _sinkhorn_numpy_before(*args)

    variants = {
        "after": sinkhorn,
        "before": _sinkhorn_numpy_before,
        "before_1t": before_1t,
        "torch": sinkhorn_torch,
    }
    # (seconds for `iters` iterations, seconds for 1): the variants take turns, `repeat` rounds,
    # and each keeps its fastest (the machine is shared). tol=0: every run does all iterations.
    best = {name: [np.inf, np.inf] for name in variants}
    for _ in range(repeat + 1):  # the first round warms up and counts like the others
        for name, fn in variants.items():
            for slot, n in enumerate((iters, 1)):
                start = time.perf_counter()
                fn(a, b, cost, 0.05, n, 0.0)
                best[name][slot] = min(best[name][slot], time.perf_counter() - start)
    # per iteration without the set-up: (t(iters) - t(1)) / (iters - 1)
    after, before, before_1t, torch_cpu = (
        (full, max(full - one, 1e-9) / (iters - 1)) for full, one in best.values()
    )
    P = sinkhorn(a, b, cost, 0.05, iters, 0.0)
    P_before = _sinkhorn_numpy_before(a, b, cost, 0.05, iters, 0.0)
    rel = float((P - P_before).abs().max() / P_before.abs().max())
    # Per iteration two matvecs read K once each: 2 * k * s * 8 bytes.
    gbs = 2 * k * s * 8 / after[1] / 1e9

    def show(x: tuple[float, float]) -> str:
        return f"{1e6 * x[1]:.0f} us/it ({1000 * x[0]:.0f} ms in all)"

    return (
        "Watermark Sinkhorn, `sinkhorn` (NumPy, BLAS at torch's threads)",
        f"K {k} x {s} float64, {iters} iterations (fastest of {repeat + 1} rounds)",
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


# -- STARK scoring of a release-sized set ----------------------------------------------------
# The full release: ~14.5k challenges (shared/data/README.md); the generators write the 139
# tier-1/2 tasks (7 localization, 7 tracking, 4 field, 37 spatial, 13 temporal, 71
# spatio-temporal) with the same count per task, as the release does (tier 3 is not generated).
STARK_FULL = 14_500
STARK_QUICK = 1_400
STARK_ROUNDS = 3  # passes over the set per timing; each family keeps its fastest


def _stark_vector(values) -> str:
    return "[" + ", ".join(f"{v:.4f}" for v in np.ravel(values)) + "]"


def stark_responses(instances) -> list[tuple[str, list[str]]]:
    """A model-like answer per instance: (response text, per-step replies for tracking).

    7 in 10 give the ground truth in tags (4 decimals; tier 2: the 0/1 label), 1 in 10 is
    perturbed (values x (1 + 5% noise); tier 2: the label flipped), 1 in 10 has no tags, and
    1 in 10 is unreadable inside the tags (or, every other time, one value short: STARK's
    "invalid prediction"). Tracking: one reply per step; the invalid ones lose steps 5-9's tags
    (STARK falls back to the centre there) or hold garbage.
    """
    rng = np.random.default_rng(0)
    out = []
    for n, inst in enumerate(instances):
        truth = np.asarray(inst.answer, dtype=float)
        kind = n % 10
        if inst.info.family == "tracking":
            rows = truth * (1 + 0.05 * rng.standard_normal(truth.shape)) if kind == 7 else truth
            steps = [
                f"Step {t}: [RESULTS_START]{_stark_vector(r)}[RESULTS_END]"
                for t, r in enumerate(rows)
            ]
            if kind == 8:
                steps[5:] = ["I cannot tell from these readings."] * (len(steps) - 5)
            elif kind == 9:
                steps = ["[RESULTS_START] near [five, six [RESULTS_END]"] * len(steps)
            out.append(("\n".join(steps), steps))
            continue
        if inst.info.tier > 1:
            body = f"{int(1 - truth[0]) if kind == 7 else int(truth[0])}"
        elif kind == 7:
            body = _stark_vector(truth * (1 + 0.05 * rng.standard_normal(truth.shape)))
        elif kind == 9 and n % 20 == 19 and truth.size > 1:
            body = _stark_vector(truth[:-1])
        else:
            body = _stark_vector(truth)
        if kind == 8:
            text = "The answer cannot be determined from the data."
        elif kind == 9 and not (n % 20 == 19 and truth.size > 1):
            text = "Answer: [RESULTS_START] roughly [a, b]] [RESULTS_END]"
        else:
            text = f"Reasoning ... so the answer is [RESULTS_START]{body}[RESULTS_END]"
        out.append((text, [text]))
    return out


def _load_official_distance(folder: str, *, without_prints: bool = False):
    """STARK's own distance.py (nesl/STARK_Benchmark), imported from a folder outside the
    project; None when it is not there. `without_prints`: its print() statements removed
    from the syntax tree (they format every prediction and ground-truth array, even when the
    output goes nowhere), to time the metric alone."""
    import ast
    import types
    from pathlib import Path

    path = Path(folder) / "distance.py"
    if not path.is_file():
        return None
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    if without_prints:

        class _NoPrint(ast.NodeTransformer):
            def visit_Expr(self, node):
                call = node.value
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print":
                    return ast.copy_location(ast.Pass(), node)
                return node

        tree = ast.fix_missing_locations(_NoPrint().visit(tree))
    module = types.ModuleType("stark_official_distance")
    module.__file__ = str(path)
    exec(compile(tree, str(path), "exec"), module.__dict__)  # noqa: S102
    return module


def _official_scores(dist, instances, responses) -> list:
    """STARK's main.py scoring calls per instance: compute_mse on the reply (tracking: its
    string_to_np_array per step, then compute_mse(string_to_array=False)); NaN on exceptions."""
    from types import SimpleNamespace

    field_tasks = {
        "spatial_impute",
        "spatiotemporal_forecast",
        "spatiotemporal_impute",
        "temporal_impute",
    }
    out = []
    for inst, (text, steps) in zip(instances, responses, strict=True):
        args = SimpleNamespace(dataset=inst.task)
        rmspe = inst.task in field_tasks
        try:
            if inst.info.family == "tracking":
                preds = [dist.string_to_np_array(s) for s in steps]
                truth = np.asarray(inst.answer)[: len(steps), :].squeeze()
                d, _ = dist.compute_mse(args, preds, truth, string_to_array=False, rmspe=rmspe)
            else:
                d, _ = dist.compute_mse(args, text, np.asarray(inst.answer), rmspe=rmspe)
        except Exception:
            d = np.nan
        out.append(d)
    return out


def bench_stark(peak: dict, rows: list, size: int = STARK_FULL, official: str = "") -> None:
    """Load / parse / score seconds for a generated release of `size` challenges, per family
    instances/s, vs STARK's own distance.py on the same responses (when `official` has it)."""
    import contextlib
    import os
    import tempfile

    from workers.benchmarks.stark.catalogue import TASKS
    from workers.benchmarks.stark.generators import GENERATED_FAMILIES, write_release
    from workers.benchmarks.stark.importer import load_release
    from workers.benchmarks.stark.scoring import parse_steps, score_instance, stark_parse

    n_tasks = sum(1 for i in TASKS.values() if i.family in GENERATED_FAMILIES)
    per_task = max(1, round(size / n_tasks))
    with tempfile.TemporaryDirectory(prefix="stark_release_") as root:
        start = time.perf_counter()
        write_release(root, seed=0, per_task=per_task)
        s_gen = time.perf_counter() - start
        s_load = np.inf
        for _ in range(2):  # the faster of two loads (the files are in the page cache for both)
            start = time.perf_counter()
            instances = load_release(root)
            s_load = min(s_load, time.perf_counter() - start)
    responses = stark_responses(instances)
    fam_of = [inst.info.family for inst in instances]
    families = sorted(set(fam_of))
    by_fam = {f: [n for n, g in enumerate(fam_of) if g == f] for f in families}
    n_fam = {f: len(idx) for f, idx in by_fam.items()}
    warm = [n for idx in by_fam.values() for n in idx[:20]]  # first calls out of the timings

    def parse_all(idx):
        for n in idx:
            if fam_of[n] == "tracking":
                parse_steps(responses[n][0], len(instances[n].answer))
            else:
                stark_parse(responses[n][0])

    def score_all(idx):
        return [score_instance(instances[n], responses[n][0]) for n in idx]

    def official_all(idx, module=None):
        chosen = module or dist
        return _official_scores(chosen, [instances[n] for n in idx], [responses[n] for n in idx])

    def fastest(fn, rounds: int = STARK_ROUNDS) -> dict[str, float]:
        """Per family, the fastest of `rounds` passes over its instances (shared machine)."""
        fn(warm)
        best = dict.fromkeys(families, np.inf)
        for _ in range(rounds):
            for fam in families:
                start = time.perf_counter()
                fn(by_fam[fam])
                best[fam] = min(best[fam], time.perf_counter() - start)
        return best

    t_parse = fastest(parse_all)
    t_score = fastest(score_all)
    scores = score_all(range(len(instances)))
    parsed = sum(s.parsed for s in scores) / len(scores)
    agree, t_off, t_off_quiet = None, {}, {}
    dist = _load_official_distance(official) if official else None
    if dist is not None:
        # distance.py prints every prediction and ground truth: to /dev/null
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            t_off = fastest(official_all)
        quiet = _load_official_distance(official, without_prints=True)
        t_off_quiet = fastest(lambda idx: official_all(idx, quiet))
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            official_d = dict(enumerate(official_all(range(len(instances)))))
        agree = _stark_agreement(scores, official_d)
    total = len(instances)
    s_parse, s_score = sum(t_parse.values()), sum(t_score.values())
    print(
        f"STARK: generated {total} instances ({per_task} per task x {n_tasks} tasks) in "
        f"{s_gen:.1f} s; parsed {100 * parsed:.1f}% of the responses"
    )
    rows.append(
        (
            "STARK scoring, whole set: load_release / stark_parse+parse_steps / score_instance",
            f"{total} generated instances, 10% perturbed, 20% unparseable or invalid; "
            f"fastest of {STARK_ROUNDS} passes per family",
            f"{s_load + s_score:.2f} s = load {s_load:.2f} s + score {s_score:.2f} s "
            f"(of which parse {s_parse:.2f} s)",
            f"{total / s_score:,.0f} instances/s scored; {total / s_load:,.0f} loaded/s",
            _stark_baseline_total(t_off, t_off_quiet, s_score, agree),
        )
    )
    for fam in families:
        rows.append(
            (
                f"STARK scoring: {fam}",
                f"{n_fam[fam]} instances",
                f"{1e6 * t_score[fam] / n_fam[fam]:.0f} us/instance (parse "
                f"{1e6 * t_parse[fam] / n_fam[fam]:.0f} us)",
                f"{n_fam[fam] / t_score[fam]:,.0f} instances/s",
                (
                    f"STARK distance.py: {n_fam[fam] / t_off[fam]:,.0f}/s with its prints, "
                    f"{n_fam[fam] / t_off_quiet[fam]:,.0f}/s without"
                    if t_off
                    else "-"
                ),
            )
        )


def _stark_agreement(scores, official: dict) -> tuple[int, int]:
    """(instances where STARK's distance and our `error` are both numbers and equal to 1e-9,
    instances where both are numbers)."""
    same = both = 0
    for i, s in enumerate(scores):
        d = official[i]
        if isinstance(d, tuple):  # loc_event_spatio_temp: (position, time)
            d = d[0]
        if d is None or s.error is None or not np.isfinite(d):
            continue
        both += 1
        same += abs(float(d) - s.error) <= 1e-9 * max(1.0, abs(s.error))
    return same, both


def _stark_baseline_total(t_off: dict, t_off_quiet: dict, s_score: float, agree) -> str:
    if not t_off:
        return "STARK's distance.py not given (--stark-official DIR): no baseline"
    loud, quiet = sum(t_off.values()), sum(t_off_quiet.values())
    return (
        f"STARK's own distance.py (main.py's calls) on the same responses: {loud:.2f} s with its "
        f"prints to /dev/null = {loud / s_score:.1f}x ours, {quiet:.2f} s with its print() "
        f"statements removed = {quiet / s_score:.1f}x; same error on {agree[0]} of {agree[1]} instances "
        f"both score"
    )


BENCHES = {
    "zen": bench_zen,
    "nbl": bench_nbl,
    "sinkhorn": bench_sinkhorn,
    "tree": bench_tree,
    "stark": bench_stark,
}


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
    p.add_argument(
        "--stark-size",
        default="full",
        help=f"challenges in the generated STARK set: full ({STARK_FULL}), quick ({STARK_QUICK}) "
        "or a number",
    )
    p.add_argument(
        "--stark-official",
        default="",
        help="folder holding STARK's own distance.py (nesl/STARK_Benchmark), for the baseline",
    )
    args = p.parse_args()
    stark_size = {"full": STARK_FULL, "quick": STARK_QUICK}.get(args.stark_size)
    if stark_size is None:
        if not args.stark_size.isdigit() or int(args.stark_size) < 1:
            p.error(f"--stark-size: full, quick or a positive number, got {args.stark_size!r}")
        stark_size = int(args.stark_size)
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
        if only and name not in only:
            continue
        if name == "stark":
            fn(peak, rows, size=stark_size, official=args.stark_official)
        else:
            fn(peak, rows)
    print("| hot path | size | time per unit | achieved vs peak | baseline |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(machine_line())


if __name__ == "__main__":
    main()
