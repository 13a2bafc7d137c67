import numpy as np
import pytest
import torch
from sklearn.linear_model import LinearRegression

from workers.methods.nbl.calibrate import select_layers
from workers.methods.nbl.linear_fit import (
    LayerStats,
    cca_bound,
    fit_lmmse,
    lmmse_mse,
    stats_from_samples,
)


def _data(n=4000, d=6, seed=0, nonlinear=0.0, noise=0.0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64) @ torch.randn(
        d, d, generator=g, dtype=torch.float64
    )
    X += 3.0  # non-zero mean, so b matters
    A = torch.randn(d, d, generator=g, dtype=torch.float64)
    c = torch.randn(d, generator=g, dtype=torch.float64)
    Y = (
        X @ A.T
        + c
        + nonlinear * torch.tanh(X) ** 2
        + noise * torch.randn(n, d, generator=g, dtype=torch.float64)
    )
    return X, Y, A, c


def test_lmmse_recovers_a_known_linear_map():
    X, Y, A, c = _data()
    W, b = fit_lmmse(stats_from_samples(X, Y), ridge=0.0)
    assert torch.allclose(W, A, atol=1e-8) and torch.allclose(b, c, atol=1e-7)
    assert lmmse_mse(stats_from_samples(X, Y), W, b) < 1e-12


def test_lmmse_matches_least_squares_with_noise_and_streaming():
    X, Y, _, _ = _data(nonlinear=1.0, noise=0.5, seed=1)
    streamed = LayerStats(X.shape[1])
    for chunk_x, chunk_y in zip(X.split(700), Y.split(700), strict=False):
        streamed.update(chunk_x, chunk_y)
    W, b = fit_lmmse(streamed, ridge=0.0)
    ref = LinearRegression().fit(X.numpy(), Y.numpy())
    np.testing.assert_allclose(W.numpy(), ref.coef_, atol=1e-8)
    np.testing.assert_allclose(b.numpy(), ref.intercept_, atol=1e-7)
    # the moment formula for the MSE equals the direct mean squared residual
    direct = ((Y - X @ W.T - b) ** 2).sum(1).mean()
    assert lmmse_mse(streamed, W, b) == pytest.approx(float(direct), rel=1e-9)


def test_canonical_correlations_match_qr_brute_force():
    X, Y, _, _ = _data(nonlinear=2.0, noise=1.0, seed=2)
    Z = X + Y
    qx, _ = torch.linalg.qr(X - X.mean(0))
    qz, _ = torch.linalg.qr(Z - Z.mean(0))
    expected = torch.linalg.svdvals(
        qx.T @ qz
    )  # cosines of principal angles = canonical correlations
    got = cca_bound(stats_from_samples(X, Y)).rho
    assert torch.allclose(got, expected, atol=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_cca_bound_upper_bounds_the_real_mse(seed):
    X, Y, _, _ = _data(nonlinear=3.0, noise=2.0, seed=seed, d=5)
    stats = stats_from_samples(X, Y)
    W, b = fit_lmmse(stats, ridge=0.0)
    mse = lmmse_mse(stats, W, b)
    bound = cca_bound(stats)
    assert mse > 1e-3  # a genuinely imperfect fit
    assert mse <= bound.mse_bound
    assert bound.bound == pytest.approx(float((1 - bound.rho**2).sum()))


def test_select_layers_orders():
    scores = {
        0: {"cca_bound": 3.0, "mse_bound": 1.0, "cosine": 0.5},
        1: {"cca_bound": 1.0, "mse_bound": 5.0, "cosine": 0.9},
        2: {"cca_bound": 2.0, "mse_bound": 2.0, "cosine": 0.99},
    }
    assert select_layers(scores, 2, "cca_bound") == [1, 2]
    assert select_layers(scores, 1, "mse_bound") == [0]
    assert select_layers(scores, 1, "cosine") == [2]
    r1, r2 = select_layers(scores, 1, "random", seed=3), select_layers(scores, 2, "random", seed=3)
    assert set(r1) <= set(r2)  # nested as k grows
    with pytest.raises(ValueError, match="k"):
        select_layers(scores, 4)
