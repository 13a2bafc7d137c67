"""Sinkhorn OT and the OT watermarks' couplings."""

import numpy as np
import pytest
import torch
from scipy.optimize import linprog

from workers.methods.watermark import (
    HeavyWaterLogitsProcessor,
    SimplexWaterLogitsProcessor,
    sinkhorn,
    top_p_indices,
)
from workers.methods.watermark.base import kl_divergence
from workers.methods.watermark.simplexwater import code_length, simplex_score


def _rand_p(v, seed, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(v, generator=g, dtype=torch.float64) * scale, 0)


def test_sinkhorn_marginals_and_near_lp_optimum():
    rng = np.random.default_rng(0)
    a = torch.tensor(rng.dirichlet(np.ones(5)))
    b = torch.tensor(rng.dirichlet(np.ones(4)))
    C = torch.tensor(rng.random((5, 4)))
    P = sinkhorn(a, b, C, reg=0.005, max_iter=20000, tol=1e-12)
    assert torch.allclose(P.sum(1), a, atol=1e-8) and torch.allclose(P.sum(0), b, atol=1e-10)
    lp = linprog(
        C.numpy().ravel(),
        A_eq=np.vstack([np.kron(np.eye(5), np.ones(4)), np.kron(np.ones(5), np.eye(4))]),
        b_eq=np.concatenate([a.numpy(), b.numpy()]),
        bounds=(0, None),
        method="highs",
    )
    assert float((P * C).sum()) == pytest.approx(lp.fun, abs=0.02)
    # a large regulariser tends to the independent coupling a b^T
    P_big = sinkhorn(a, b, C, reg=1e3)
    assert torch.allclose(P_big, a[:, None] * b[None, :], atol=1e-4)


def test_sinkhorn_rejects_bad_input():
    with pytest.raises(ValueError, match="reg"):
        sinkhorn(torch.ones(2) / 2, torch.ones(2) / 2, torch.zeros(2, 2), reg=0)
    with pytest.raises(ValueError, match="shape"):
        sinkhorn(torch.ones(2) / 2, torch.ones(3) / 3, torch.zeros(2, 2), reg=1)


def test_top_p_indices_matches_brute_force():
    p = torch.tensor([0.05, 0.5, 0.2, 0.15, 0.1], dtype=torch.float64)
    assert sorted(top_p_indices(p, 0.5).tolist()) == [1]
    assert sorted(top_p_indices(p, 0.7).tolist()) == [1, 2]
    assert sorted(top_p_indices(p, 0.71).tolist()) == [1, 2, 3]
    assert sorted(top_p_indices(p, 1.0).tolist()) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "cls,kw",
    [(HeavyWaterLogitsProcessor, {"num_side_info": 256}), (SimplexWaterLogitsProcessor, {})],
)
def test_ot_coupling_marginals(cls, kw):
    proc = cls(40, key=3, top_p=1.0, **kw)
    p = _rand_p(40, 1)
    idx, plan = proc.coupling(p)
    m = proc.num_side_info
    assert plan.shape == (40, m)
    rows = torch.zeros(40, dtype=torch.float64)
    rows[idx] = plan.sum(1)
    assert torch.allclose(rows, p, atol=1e-4)  # rows sum to P
    assert torch.allclose(
        plan.sum(0), torch.full((m,), 1 / m, dtype=torch.float64), atol=1e-10
    )  # uniform S
    # untilted: averaging P_{X|S=s} over s gives back P (distortion-free); tilting biases it
    assert kl_divergence(proc.mean_distribution(p), p) < 1e-6
    tilted = cls(40, key=3, top_p=1.0, tilt_delta=0.5, **kw)
    assert kl_divergence(tilted.mean_distribution(p), p) > 1e-3


def test_ot_column_favours_high_scores():
    """The coupling puts the column of s on tokens with large f(x, s): E_Q f > E_P f."""
    proc = SimplexWaterLogitsProcessor(64, key=5, top_p=1.0)
    p = _rand_p(64, 2, scale=0.5)
    idx, plan = proc.coupling(p)
    f = proc.score_matrix(idx)
    cols = plan / plan.sum(0, keepdim=True)
    e_q = (cols * f).sum(0).mean()
    e_p = (p[idx][:, None] * f).sum(0).mean()
    assert float(e_q) > float(e_p) + 0.2


def test_simplex_score_is_bit_inner_product_mod_2():
    n = code_length(100)
    assert n == 7
    for x in range(0, 100, 7):
        for s in range(1, 2**n, 11):
            bx = [int(c) for c in format(x, f"0{n}b")]
            bs = [int(c) for c in format(s, f"0{n}b")]
            assert simplex_score(x, s) == sum(i * j for i, j in zip(bx, bs, strict=False)) % 2
    # simplex code: every non-zero s splits the 2^n words exactly in half
    words = np.arange(2**n)
    for s in (1, 5, 2**n - 1):
        assert simplex_score(words, s).sum() == 2 ** (n - 1)


def test_heavywater_scores_normalised_per_token():
    proc = HeavyWaterLogitsProcessor(50, key=9, num_side_info=512)
    f = proc.score_matrix(torch.arange(50)).numpy()
    assert np.allclose(f.mean(1), 0, atol=1e-12) and np.allclose(f.std(1), 1, atol=1e-12)
    assert (f.max(1) > 3).mean() > 0.5  # heavy right tail of the log-normal
    # same key, same table; different key, different table
    assert np.array_equal(
        f,
        HeavyWaterLogitsProcessor(50, key=9, num_side_info=512)
        .score_matrix(torch.arange(50))
        .numpy(),
    )
    assert not np.allclose(
        f,
        HeavyWaterLogitsProcessor(50, key=10, num_side_info=512)
        .score_matrix(torch.arange(50))
        .numpy(),
    )
